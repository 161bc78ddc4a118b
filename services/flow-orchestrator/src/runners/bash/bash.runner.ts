import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ScriptLanguage } from '@flowmesh/contracts';
import {
  JobError,
  type LogLineSink,
  type ScriptJob,
  type ScriptRunner,
  type ScriptRunOptions,
} from '../../ports/script-runner.port.js';
import { jobErrors } from '../job-errors.js';
import type { JobWorkdirs } from '../process/job-workdir.js';
import { describeExit, runScriptProcess } from '../process/script-process.js';
import { bashArguments, bashParams } from './bash-params.util.js';

/**
 * Runs the script in the shell that reads its arguments from fd 3 (each NUL-terminated) and makes
 * them its positional parameters: as command-line arguments, any job could read them in
 * `/proc/<pid>/cmdline` (a `$var:` secret resolved into an argument, say). `$0` stays the script.
 */
const READ_ARGUMENTS = `__fm_args=(); while IFS= read -r -d '' __fm_a <&3; do __fm_args+=("$__fm_a"); done; exec 3<&-; set -- "\${__fm_args[@]}"; unset __fm_args __fm_a; . "$0"`;

export interface BashRunnerOptions {
  readonly executable: string;
  readonly path: string;
  readonly maxResultBytes: number;
}

/**
 * `bash` scripts as subprocesses, Windmill's way: arguments as positional values in the order
 * the script declares them (`name="$1"`), the result is `./result.json` when the script writes
 * one, else the last line it printed (a string).
 */
export class BashRunner implements ScriptRunner {
  readonly languages: readonly ScriptLanguage[] = ['bash'];

  constructor(
    private readonly options: BashRunnerOptions,
    private readonly workdirs: JobWorkdirs,
  ) {}

  run(job: ScriptJob, onLog: LogLineSink, options: ScriptRunOptions = {}): Promise<unknown> {
    const params = bashParams(job.content);
    const values = bashArguments(params, job.args);
    const nul = values.findIndex((value) => value.includes('\0'));
    // A shell variable cannot hold one (nor could a command-line argument).
    if (nul >= 0)
      return Promise.reject(
        new JobError('ExecutionErr', `argument ${params[nul]} holds a NUL byte, which bash cannot take`),
      );
    const spec = {
      fileName: 'main.sh',
      executable: this.options.executable,
      path: this.options.path,
      args: (script: string) => ['-c', READ_ARGUMENTS, script],
      input: values.map((value) => `${value}\0`).join(''),
    };
    return runScriptProcess(this.workdirs, job, onLog, options, spec, async (outcome, workdir) => {
      if (outcome.exitCode !== 0) {
        const tail = outcome.tail.slice(-5).join('\n');
        if (/cannot allocate|xmalloc|xrealloc|out of memory/i.test(tail))
          throw jobErrors.memory(job.memoryMb);
        throw new JobError(
          'ExecutionErr',
          `bash ${describeExit(outcome)}${tail ? `; last lines:\n${tail}` : ''}`,
        );
      }
      const written = await readFile(join(workdir, 'result.json'), 'utf8').catch(() => undefined);
      const text = written ?? JSON.stringify(outcome.lastStdoutLine ?? null);
      const bytes = Buffer.byteLength(text);
      if (bytes > this.options.maxResultBytes)
        throw jobErrors.resultTooLarge(bytes, this.options.maxResultBytes);
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        throw jobErrors.notJson(`./result.json: ${(error as Error).message}`);
      }
    });
  }
}
