import { fileURLToPath } from 'node:url';
import type { LogLineSink, ScriptJob, ScriptRunOptions } from '../../ports/script-runner.port.js';
import { JobError } from '../../ports/script-runner.port.js';
import { jobErrors } from '../job-errors.js';
import type { JobWorkdirs } from '../process/job-workdir.js';
import type { JobPackages } from './import-specifier.util.js';
import { moduleUrl, type WorkspaceModules } from './workspace-modules.js';
import { describeExit, runScriptProcess } from '../process/script-process.js';
import type { SubprocessOutcome } from '../process/subprocess.js';
import { wrapperResult } from '../process/wrapper-reply.js';

export interface TypeScriptProcessOptions {
  /** PATH of the process (the worker's own environment is not passed on). */
  readonly path: string;
  readonly maxResultBytes: number;
}

const ENTRY = new URL(
  `./typescript-process.main${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

/**
 * TypeScript jobs that need a working directory of their own (`workdirKey`: the steps of a
 * `same_worker` flow, which share `./shared`), each as a Node process (`typescript-process.main.ts`)
 * in its job directory: a process start (~30 ms) instead of a warm thread, which shares the
 * worker's directory. The memory limit is the process's V8 heap.
 */
export class TypeScriptProcessRunner {
  constructor(
    private readonly options: TypeScriptProcessOptions,
    private readonly workdirs: JobWorkdirs,
  ) {}

  run(
    job: ScriptJob,
    onLog: LogLineSink,
    options: ScriptRunOptions = {},
    packages?: JobPackages,
    workspace?: WorkspaceModules,
  ): Promise<unknown> {
    const filename = moduleUrl(job.path);
    const spec = {
      fileName: 'main.ts',
      executable: process.execPath,
      path: this.options.path,
      args: (script: string) => [
        `--max-old-space-size=${job.memoryMb}`,
        '--disable-warning=ExperimentalWarning',
        fileURLToPath(ENTRY),
        script,
        job.entrypoint ?? 'main',
        filename,
        ...(packages ? [JSON.stringify(packages)] : []),
      ],
      input: JSON.stringify({
        args: job.args,
        ...(workspace ? { workspace } : {}),
        ...(job.preprocess ? { preprocess: true } : {}),
      }),
      // The preprocessed arguments come back beside the result, each within the limit.
      resultLimitBytes: this.options.maxResultBytes * (job.preprocess ? 2 : 1) + 64,
      // V8 reserves far more address space than it uses: its heap limit is the memory limit.
      limitAddressSpace: false,
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
        // V8 prints its native stack after the fatal error: look at every line kept.
        if (outcome.tail.some((line) => line.includes('JavaScript heap out of memory'))) {
          return jobErrors.memory(job.memoryMb, 'JavaScript heap');
        }
        const tail = outcome.tail.slice(-5).join('\n');
        return new JobError(
          'ExecutionErr',
          `the TypeScript process ${describeExit(outcome)} before returning a result${tail ? `:\n${tail}` : ''}`,
        );
      },
      undefined,
      options.onPreprocessed,
    );
  }
}
