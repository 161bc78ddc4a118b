import { dateParams } from './main-params.util.js';
import type { ScriptLanguage, TypescriptRequirements } from '@flowmesh/contracts';
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
import {
  TypeScriptThreadPool,
  type JobThread,
  type ThreadEvent,
  type TypeScriptPoolOptions,
} from './typescript-thread.pool.js';

/** Distinct scripts whose converted source is kept (a flow's steps, a busy worker's scripts). */
const FUNCTION_SOURCES_KEPT = 512;

/**
 * How often a running job's whole memory is looked at. V8's limit (`resourceLimits`) covers the
 * job's heap only: what its ArrayBuffers and typed arrays hold lives outside it, and a job once
 * held 3 GiB of them under a 1 GiB limit. The thread's heap statistics come back even while the
 * job computes (V8 answers between two instructions), so a job over its limit in heap and
 * buffers together is stopped within about this long: a bound on what a job keeps, not on how
 * fast it allocates (a hard one needs the job in a process of its own, with an OS limit).
 */
const MEMORY_CHECK_MS = 100;
const MiB = 1024 * 1024;

export interface TypeScriptRunnerOptions extends TypeScriptPoolOptions {
  readonly maxResultBytes: number;
  /** Installs the packages scripts import that the worker does not have; without it they fail to import. */
  readonly packages?: PackageInstaller;
}

/**
 * `bun`, `bunnative`, `deno` and `nativets` scripts on Node's own TypeScript type stripping, in
 * warm worker threads: a job's cost is a fresh V8 context and a module compile, not a process
 * or thread start. The time limit ends the thread; the memory limit is the thread's heap limit.
 */
export class TypeScriptRunner implements ScriptRunner {
  readonly languages: readonly ScriptLanguage[] = ['bun', 'bunnative', 'deno', 'nativets'];
  private readonly pool: TypeScriptThreadPool;
  /** Each distinct script's module function source (or why it has none), most recent last. */
  private readonly functionSources = new Map<string, { source: string } | { error: string }>();

  /**
   * `processes` runs the jobs that need a working directory of their own (`workdirKey`); without
   * it they run in a thread, in the worker's directory.
   */
  constructor(
    private readonly options: TypeScriptRunnerOptions,
    private readonly processes?: TypeScriptProcessRunner,
  ) {
    this.pool = new TypeScriptThreadPool(options);
  }

  start(): void {
    this.pool.start();
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  /** Threads started and not ended, and jobs waiting for one. */
  stats(): { threads: number; waiting: number } {
    return { threads: this.pool.size, waiting: this.pool.waiting };
  }

  async run(job: ScriptJob, onLog: LogLineSink, options: ScriptRunOptions = {}): Promise<unknown> {
    const { signal, onStart } = options;
    if (signal?.aborted) throw jobErrors.canceled();
    // Installed before the job starts: a first install is not part of its time limit.
    const requirements = this.requirementsOf(job);
    let packages: JobPackages | undefined;
    if (requirements) {
      packages = await this.options.packages!.packagesFor(requirements, onLog);
      if (signal?.aborted) throw jobErrors.canceled();
    }
    if (job.workdirKey !== undefined && this.processes)
      return this.processes.run(job, onLog, options, packages);
    const functionSource = this.functionSourceOf(job.content);
    // A script that does not parse fails as it starts, without a thread.
    if ('error' in functionSource) {
      onStart?.();
      throw new JobError('SyntaxError', functionSource.error);
    }
    // The wait for a thread is not the job's time: its limit starts when it runs.
    const thread = await this.pool
      .acquire(job.memoryMb, signal, job.realmKey, job.priority)
      .catch((error: unknown) => {
        throw signal?.aborted ? jobErrors.canceled() : error;
      });
    // Cancelled while its thread started (no listener heard it then): the thread goes back unused.
    if (signal?.aborted) {
      this.pool.release(thread, true);
      throw jobErrors.canceled();
    }
    onStart?.();
    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      const finish = (outcome: { value: unknown } | { error: JobError }, reusable: boolean): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearInterval(memoryCheck);
        signal?.removeEventListener('abort', onAbort);
        if (reusable) this.pool.release(thread, true);
        else this.pool.retire(thread);
        if ('error' in outcome) reject(outcome.error);
        else resolve(outcome.value);
      };
      const timer = setTimeout(
        () => finish({ error: jobErrors.timeout(job.timeoutMs) }, false),
        job.timeoutMs,
      );
      const memoryCheck = setInterval(() => {
        thread.worker.getHeapStatistics().then(
          (heap) => {
            if (heap.used_heap_size + heap.external_memory <= job.memoryMb * MiB) return;
            // Named as V8 names its own stop when the heap is most of it, so either says the same.
            const detail =
              heap.external_memory > heap.used_heap_size ? 'heap and buffers' : 'JavaScript heap';
            finish({ error: jobErrors.memory(job.memoryMb, detail) }, false);
          },
          () => undefined, // the thread ended meanwhile: its exit says why
        );
      }, MEMORY_CHECK_MS);
      memoryCheck.unref();
      const onAbort = (): void => finish({ error: jobErrors.canceled() }, false);
      signal?.addEventListener('abort', onAbort, { once: true });
      thread.listener = (event) => this.onEvent(event, job, thread, onLog, finish);
      thread.post({
        functionSource: functionSource.source,
        argsJson: JSON.stringify(job.args),
        envJson: JSON.stringify(job.env),
        entrypoint: job.entrypoint ?? 'main',
        dateParams: dateParams(job.content, job.entrypoint ?? 'main'),
        maxResultBytes: this.options.maxResultBytes,
        path: job.path ?? null,
        ...(job.realmKey !== undefined ? { realmKey: job.realmKey } : {}),
        ...(packages ? { packages } : {}),
      });
    });
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

  /** What the job's imports need installed, when the worker installs packages and it imports any it lacks. */
  private requirementsOf(job: ScriptJob): TypescriptRequirements | undefined {
    if (!this.options.packages) return undefined;
    let requirements: TypescriptRequirements;
    try {
      requirements = scriptRequirements(job.content);
    } catch (error) {
      throw new JobError('ImportError', (error as Error).message);
    }
    return Object.keys(requirements).length > 0 ? requirements : undefined;
  }

  private onEvent(
    event: ThreadEvent,
    job: ScriptJob,
    thread: JobThread,
    onLog: LogLineSink,
    finish: (outcome: { value: unknown } | { error: JobError }, reusable: boolean) => void,
  ): void {
    switch (event.type) {
      case 'log':
        onLog(event.line);
        return;
      case 'done':
        if (!event.ok) {
          finish(
            { error: new JobError(event.error.name, event.error.message, event.error.stack) },
            event.reusable,
          );
        } else if (event.json === undefined) {
          finish(
            { error: jobErrors.resultTooLarge(event.bytes, this.options.maxResultBytes) },
            event.reusable,
          );
        } else {
          finish({ value: JSON.parse(event.json) as unknown }, event.reusable);
        }
        return;
      case 'exit':
        finish(
          {
            error: event.outOfMemory
              ? jobErrors.memory(thread.memoryMb, 'JavaScript heap')
              : new JobError('ExecutionErr', `job ${job.id}: ${event.message}`),
          },
          false,
        );
        return;
      case 'ready':
      case 'awaiting':
        return;
    }
  }
}
