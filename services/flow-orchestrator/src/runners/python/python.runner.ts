import { writeFile } from 'node:fs/promises';
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
import { runSubprocess, type SubprocessOutcome } from '../process/subprocess.js';
import { PYTHON_WRAPPER } from './python-wrapper.source.js';

export interface PythonRunnerOptions {
  readonly executable: string;
  readonly path: string;
  readonly maxResultBytes: number;
}

type WrapperReply =
  { ok: true; result: unknown } | { ok: false; error: { name: string; message: string; stack?: string } };

/**
 * `python3` scripts as subprocesses: `main(**kwargs)` through a small wrapper, arguments in on
 * fd 3 and the result out on fd 4 as JSON, so stdout and stderr stay the job's logs.
 */
export class PythonRunner implements ScriptRunner {
  readonly languages: readonly ScriptLanguage[] = ['python3'];

  constructor(
    private readonly options: PythonRunnerOptions,
    private readonly workdirs: JobWorkdirs,
  ) {}

  async run(job: ScriptJob, onLog: LogLineSink, options: ScriptRunOptions = {}): Promise<unknown> {
    options.onStart?.();
    const workdir = await this.workdirs.create(job);
    try {
      const script = join(workdir.path, 'main.py');
      await writeFile(script, job.content);
      const outcome = await runSubprocess({
        command: this.options.executable,
        args: ['-u', '-c', PYTHON_WRAPPER, script, job.entrypoint ?? 'main'],
        cwd: workdir.path,
        env: processEnv({ path: this.options.path, workdir: workdir.path }, job.env, {
          PYTHONUNBUFFERED: '1',
          PYTHONDONTWRITEBYTECODE: '1',
          PYTHONIOENCODING: 'utf-8',
        }),
        timeoutMs: job.timeoutMs,
        memoryMb: job.memoryMb,
        onLog,
        ...(options.signal ? { signal: options.signal } : {}),
        input: JSON.stringify(job.args),
        resultLimitBytes: this.options.maxResultBytes + 64,
      });
      return this.resultOf(job, outcome);
    } finally {
      await workdir.dispose();
    }
  }

  private resultOf(job: ScriptJob, outcome: SubprocessOutcome): unknown {
    if (outcome.resultOverflow) {
      throw jobErrors.resultTooLarge(outcome.resultBytes, this.options.maxResultBytes);
    }
    if (outcome.result === '') {
      const tail = outcome.tail.slice(-5).join('\n');
      if (/MemoryError|Cannot allocate memory|cannot allocate/i.test(tail))
        throw jobErrors.memory(job.memoryMb);
      const how = outcome.signal ? `was killed by ${outcome.signal}` : `exited with code ${outcome.exitCode}`;
      throw new JobError(
        'ExecutionErr',
        `python3 ${how} before returning a result${tail ? `:\n${tail}` : ''}`,
      );
    }
    const reply = JSON.parse(outcome.result) as WrapperReply;
    if (!reply.ok) {
      if (reply.error.name === 'MemoryError') throw jobErrors.memory(job.memoryMb, 'MemoryError');
      throw new JobError(reply.error.name, reply.error.message, reply.error.stack);
    }
    const bytes = Buffer.byteLength(JSON.stringify(reply.result) ?? 'null');
    if (bytes > this.options.maxResultBytes)
      throw jobErrors.resultTooLarge(bytes, this.options.maxResultBytes);
    return reply.result;
  }
}
