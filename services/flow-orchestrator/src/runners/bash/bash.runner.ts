import { readFile, writeFile } from 'node:fs/promises';
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
import { processEnv } from '../process/process-env.js';
import { runSubprocess } from '../process/subprocess.js';
import { bashArguments, bashParams } from './bash-params.util.js';

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

  async run(job: ScriptJob, onLog: LogLineSink, options: ScriptRunOptions = {}): Promise<unknown> {
    options.onStart?.();
    const workdir = await this.workdirs.create(job);
    try {
      const script = join(workdir.path, 'main.sh');
      await writeFile(script, job.content);
      const outcome = await runSubprocess({
        command: this.options.executable,
        args: [script, ...bashArguments(bashParams(job.content), job.args)],
        cwd: workdir.path,
        env: processEnv({ path: this.options.path, workdir: workdir.path }, job.env),
        timeoutMs: job.timeoutMs,
        memoryMb: job.memoryMb,
        onLog,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (outcome.exitCode !== 0) {
        const tail = outcome.tail.slice(-5).join('\n');
        if (/cannot allocate|xmalloc|xrealloc|out of memory/i.test(tail))
          throw jobErrors.memory(job.memoryMb);
        const how = outcome.signal
          ? `was killed by ${outcome.signal}`
          : `exited with code ${outcome.exitCode}`;
        throw new JobError('ExecutionErr', `bash ${how}${tail ? `; last lines:\n${tail}` : ''}`);
      }
      const written = await readFile(join(workdir.path, 'result.json'), 'utf8').catch(() => undefined);
      const text = written ?? JSON.stringify(outcome.lastStdoutLine ?? null);
      const bytes = Buffer.byteLength(text);
      if (bytes > this.options.maxResultBytes)
        throw jobErrors.resultTooLarge(bytes, this.options.maxResultBytes);
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        throw jobErrors.notJson(`./result.json: ${(error as Error).message}`);
      }
    } finally {
      await workdir.dispose();
    }
  }
}
