import { parsePythonLockText, type ScriptLanguage } from '@flowmesh/contracts';
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
import type { SubprocessOutcome } from '../process/subprocess.js';
import { wrapperResult } from '../process/wrapper-reply.js';
import type { WorkspaceScriptReader } from '../typescript/workspace-imports.js';
import type { PythonPackages } from './python-packages.js';
import { readPythonWorkspaceImports } from './python-workspace-imports.js';
import { PYTHON_WRAPPER } from './python-wrapper.source.js';

export interface PythonRunnerOptions {
  readonly executable: string;
  readonly path: string;
  readonly maxResultBytes: number;
  /** Installs what a job's lock pins; without it a lock is not installed. */
  readonly packages?: PythonPackages;
  /** Reads the workspace scripts a job imports (`f.lib.x`, `.sibling`), with its token; without it they fail to import. */
  readonly scripts?: WorkspaceScriptReader;
}

/**
 * `python3` scripts as subprocesses: `main(**kwargs)` through a small wrapper, arguments in on
 * fd 3 and the result out on fd 4 as JSON, so stdout and stderr stay the job's logs. A job whose
 * lock pins packages (dependency-locker's, `# py: 3.x` then `name==version` lines) gets them
 * installed once per lock (`python-packages.ts`) on its `PYTHONPATH` before it starts; the
 * workspace scripts it imports are written beside it (`python-workspace-imports.ts`).
 */
export class PythonRunner implements ScriptRunner {
  readonly languages: readonly ScriptLanguage[] = ['python3'];

  constructor(
    private readonly options: PythonRunnerOptions,
    private readonly workdirs: JobWorkdirs,
  ) {}

  async run(job: ScriptJob, onLog: LogLineSink, options: ScriptRunOptions = {}): Promise<unknown> {
    // Read and installed before the job starts: neither is part of its time limit.
    const modules = this.options.scripts
      ? await readPythonWorkspaceImports(job, this.options.scripts)
      : undefined;
    if (options.signal?.aborted) throw jobErrors.canceled();
    const lock = this.options.packages ? parsePythonLockText(job.lock) : undefined;
    const packagesDir =
      lock && Object.keys(lock.pins).length > 0
        ? await this.options.packages!.dirFor(lock, onLog)
        : undefined;
    if (options.signal?.aborted) throw jobErrors.canceled();
    const spec = {
      fileName: 'main.py',
      executable: this.options.executable,
      path: this.options.path,
      args: (script: string) => [
        '-u',
        '-c',
        PYTHON_WRAPPER,
        script,
        job.entrypoint ?? 'main',
        ...(modules?.name ? [modules.name] : []),
      ],
      ...(modules ? { files: modules.files } : {}),
      env: {
        PYTHONUNBUFFERED: '1',
        PYTHONDONTWRITEBYTECODE: '1',
        PYTHONIOENCODING: 'utf-8',
        ...(packagesDir ? { PYTHONPATH: packagesDir } : {}),
      },
      input: JSON.stringify({ args: job.args, ...(job.preprocess ? { preprocess: true } : {}) }),
      // The preprocessed arguments come back beside the result, each within the limit.
      resultLimitBytes: this.options.maxResultBytes * (job.preprocess ? 2 : 1) + 64,
    };
    return runScriptProcess(this.workdirs, job, onLog, options, spec, (outcome) =>
      this.resultOf(job, outcome, options),
    );
  }

  private resultOf(job: ScriptJob, outcome: SubprocessOutcome, options: ScriptRunOptions): unknown {
    return wrapperResult(
      outcome,
      this.options.maxResultBytes,
      () => {
        const tail = outcome.tail.slice(-5).join('\n');
        if (/MemoryError|Cannot allocate memory|cannot allocate/i.test(tail))
          return jobErrors.memory(job.memoryMb);
        return new JobError(
          'ExecutionErr',
          `python3 ${describeExit(outcome)} before returning a result${tail ? `:\n${tail}` : ''}`,
        );
      },
      (error) => (error.name === 'MemoryError' ? jobErrors.memory(job.memoryMb, 'MemoryError') : undefined),
      options.onPreprocessed,
    );
  }
}
