import { dateParams } from './main-params.util.js';
import { parseNpmLockText, type ScriptLanguage, type TypescriptRequirements } from '@flowmesh/contracts';
import {
  JobError,
  type LogLineSink,
  type ScriptJob,
  type ScriptRunner,
  type ScriptRunOptions,
} from '../../ports/script-runner.port.js';
import { jobErrors } from '../job-errors.js';
import type { JobPackages } from './import-specifier.util.js';
import type { PackageInstaller } from './package-installer.js';
import { scriptRequirements } from './script-packages.js';
import { scriptFunctionSource } from './typescript-source.util.js';
import type { TypeScriptProcessRunner } from './typescript-process.runner.js';
import { readWorkspaceImports, type JobWorkspace, type WorkspaceScriptReader } from './workspace-imports.js';
import {
  ThreadJobs,
  type ThreadJobsOptions,
  type ThreadStats,
  type TypeScriptThreads,
} from './thread-jobs.js';

/** Distinct scripts whose converted source is kept (a flow's steps, a busy worker's scripts). */
const FUNCTION_SOURCES_KEPT = 512;

export interface TypeScriptRunnerOptions extends ThreadJobsOptions {
  /** Installs the packages scripts import that the worker does not have; without it they fail to import. */
  readonly packages?: PackageInstaller;
  /** Reads the workspace scripts a job imports (`/f/...`, `./x`), with its token; without it they fail to import. */
  readonly scripts?: WorkspaceScriptReader;
}

/** Cheap test before parsing: only a script with a quoted `/`, `./` or `../` can import a workspace script. */
const MAY_IMPORT_SCRIPTS = /['"`]\.{0,2}\//;

/**
 * `bun`, `bunnative`, `deno` and `nativets` scripts on Node's own TypeScript type stripping, in
 * warm worker threads: a job's cost is a fresh V8 context and a module compile, not a process
 * or thread start. The threads are this process's (`ThreadJobs`) or, in a worker, a sandbox
 * process's that holds no credential (`isolation/`).
 */
export class TypeScriptRunner implements ScriptRunner {
  readonly languages: readonly ScriptLanguage[] = ['bun', 'bunnative', 'deno', 'nativets'];
  /** Each distinct script's module function source (or why it has none), most recent last. */
  private readonly functionSources = new Map<string, { source: string } | { error: string }>();

  /**
   * `processes` runs the jobs that need a working directory of their own (`workdirKey`); without
   * it they run in a thread. `threads` runs the others (default: threads of this process).
   */
  constructor(
    private readonly options: TypeScriptRunnerOptions,
    private readonly processes?: TypeScriptProcessRunner,
    private readonly threads: TypeScriptThreads = new ThreadJobs(options),
  ) {}

  start(): void {
    this.threads.start();
  }

  close(): Promise<void> {
    return this.threads.close();
  }

  /** Threads started and not ended, and jobs waiting for one. */
  stats(): ThreadStats {
    return this.threads.stats();
  }

  async run(job: ScriptJob, onLog: LogLineSink, options: ScriptRunOptions = {}): Promise<unknown> {
    const { signal, onStart } = options;
    if (signal?.aborted) throw jobErrors.canceled();
    // Read and installed before the job starts: neither is part of its time limit.
    const imported = await this.workspaceOf(job);
    if (signal?.aborted) throw jobErrors.canceled();
    const requirements = this.requirementsOf(job, imported);
    let packages: JobPackages | undefined;
    if (requirements) {
      packages = await this.options.packages!.packagesFor(requirements, onLog, parseNpmLockText(job.lock));
      if (signal?.aborted) throw jobErrors.canceled();
    }
    if (job.workdirKey !== undefined && this.processes)
      return this.processes.run(job, onLog, options, packages, imported?.workspace);
    const functionSource = this.functionSourceOf(job.content);
    // A script that does not parse fails as it starts, without a thread.
    if ('error' in functionSource) {
      onStart?.();
      throw new JobError('SyntaxError', functionSource.error);
    }
    const json = await this.threads.run(
      {
        jobId: job.id,
        memoryMb: job.memoryMb,
        timeoutMs: job.timeoutMs,
        ...(job.realmKey !== undefined ? { realmKey: job.realmKey } : {}),
        ...(job.trustKey !== undefined ? { trustKey: job.trustKey } : {}),
        ...(job.priority !== undefined ? { priority: job.priority } : {}),
        job: {
          functionSource: functionSource.source,
          argsJson: JSON.stringify(job.args),
          envJson: JSON.stringify(job.env),
          entrypoint: job.entrypoint ?? 'main',
          ...(job.preprocess ? { preprocess: true } : {}),
          dateParams: dateParams(job.content, job.entrypoint ?? 'main'),
          maxResultBytes: this.options.maxResultBytes,
          path: job.path ?? null,
          ...(job.realmKey !== undefined ? { realmKey: job.realmKey } : {}),
          ...(job.trustKey !== undefined ? { trustKey: job.trustKey } : {}),
          ...(packages ? { packages } : {}),
          ...(imported ? { workspace: imported.workspace } : {}),
        },
      },
      onLog,
      options,
    );
    return JSON.parse(json) as unknown;
  }

  /**
   * The script's TypeScript stripped and its module rewritten as a function, once per distinct
   * script: here, where the stripper is loaded once, rather than in each thread.
   */
  private functionSourceOf(content: string): { source: string } | { error: string } {
    let converted = this.functionSources.get(content);
    if (converted) {
      this.functionSources.delete(content);
    } else {
      try {
        converted = { source: scriptFunctionSource(content) };
      } catch (error) {
        converted = { error: (error as Error).message };
      }
      if (this.functionSources.size >= FUNCTION_SOURCES_KEPT)
        this.functionSources.delete(this.functionSources.keys().next().value!);
    }
    this.functionSources.set(content, converted);
    return converted;
  }

  /** The workspace scripts the job imports, read with its token, when it imports any. */
  private async workspaceOf(job: ScriptJob): Promise<JobWorkspace | undefined> {
    if (!this.options.scripts || !MAY_IMPORT_SCRIPTS.test(job.content)) return undefined;
    return readWorkspaceImports(job, this.options.scripts, (content) => this.functionSourceOf(content));
  }

  /**
   * What the job's imports (and those of the scripts it imports) need installed, when the worker
   * installs packages and they import any it lacks. The job's own ranges win.
   */
  private requirementsOf(job: ScriptJob, imported?: JobWorkspace): TypescriptRequirements | undefined {
    if (!this.options.packages) return undefined;
    let requirements: TypescriptRequirements;
    try {
      requirements = { ...imported?.requirements, ...scriptRequirements(job.content) };
    } catch (error) {
      throw new JobError('ImportError', (error as Error).message);
    }
    return Object.keys(requirements).length > 0 ? requirements : undefined;
  }
}
