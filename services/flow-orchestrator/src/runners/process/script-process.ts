import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { LogLineSink, ScriptJob, ScriptRunOptions } from '../../ports/script-runner.port.js';
import type { JobWorkdirs } from './job-workdir.js';
import { processEnv } from './process-env.js';
import { runSubprocess, type SubprocessOutcome } from './subprocess.js';

/** How one interpreter runs a job's script file. */
export interface ScriptProcessSpec {
  /** The script's file name in the job's working directory (`main.sh`, `main.py`). */
  readonly fileName: string;
  readonly executable: string;
  /** PATH of the process (the worker's own environment is not passed on). */
  readonly path: string;
  readonly args: (scriptPath: string) => readonly string[];
  /** Variables of the interpreter over the job's own. */
  readonly env?: Readonly<Record<string, string>>;
  readonly input?: string;
  readonly resultLimitBytes?: number;
  /** See `SubprocessSpec.limitAddressSpace`. */
  readonly limitAddressSpace?: boolean;
  /** Other files the script needs beside it (relative path to content), folders made as needed. */
  readonly files?: Readonly<Record<string, string>>;
}

/**
 * Runs a job's script as a subprocess in a working directory of its own, as the directory's user
 * (the job's limits, logs and cancel signal), then `read`s the outcome while the directory still
 * exists; the directory goes afterwards, whatever happened, with every process of the job's uid.
 */
export async function runScriptProcess<T>(
  workdirs: JobWorkdirs,
  job: ScriptJob,
  onLog: LogLineSink,
  options: ScriptRunOptions,
  spec: ScriptProcessSpec,
  read: (outcome: SubprocessOutcome, workdir: string) => T | Promise<T>,
): Promise<T> {
  // A job waits for a uid of its own (and its directory) before it counts as started.
  const workdir = await workdirs.create(job);
  options.onStart?.();
  try {
    const script = join(workdir.path, spec.fileName);
    await writeFile(script, job.content);
    for (const [file, content] of Object.entries(spec.files ?? {})) {
      const target = join(workdir.path, file);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
    }
    const outcome = await runSubprocess({
      command: spec.executable,
      args: spec.args(script),
      cwd: workdir.path,
      env: processEnv({ path: spec.path, workdir: workdir.path }, job.env, spec.env),
      timeoutMs: job.timeoutMs,
      memoryMb: job.memoryMb,
      sandbox: workdir.sandbox,
      onLog,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(spec.input !== undefined ? { input: spec.input } : {}),
      ...(spec.resultLimitBytes !== undefined ? { resultLimitBytes: spec.resultLimitBytes } : {}),
      ...(spec.limitAddressSpace !== undefined ? { limitAddressSpace: spec.limitAddressSpace } : {}),
    });
    return await read(outcome, workdir.path);
  } finally {
    await workdir.dispose();
  }
}

/** How a process that gave no result ended: `was killed by SIGKILL`, `exited with code 2`. */
export function describeExit(outcome: SubprocessOutcome): string {
  return outcome.signal ? `was killed by ${outcome.signal}` : `exited with code ${outcome.exitCode}`;
}
