import { JobError, type LogLineSink, type ScriptRunOptions } from '../../ports/script-runner.port.js';
import { jobErrors } from '../job-errors.js';
import type { ThreadJob } from './typescript-thread.protocol.js';
import {
  TypeScriptThreadPool,
  type JobThread,
  type ThreadEvent,
  type PoolCounters,
  type TypeScriptPoolOptions,
} from './typescript-thread.pool.js';

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

/** What becomes of a thread after its job: reused by anyone, kept for the job's run, or ended. */
type Afterwards = 'reuse' | 'keep-for-run' | 'retire';

/** One TypeScript job for a thread: the script already converted, with its limits. */
export interface ThreadJobRequest {
  readonly jobId: string;
  readonly memoryMb: number;
  readonly timeoutMs: number;
  readonly realmKey?: string;
  /** The authority the job acts with (see `ScriptJob.trustKey`). */
  readonly trustKey?: string;
  readonly priority?: number;
  readonly job: ThreadJob;
}

/**
 * Where TypeScript jobs run: threads of this process (`ThreadJobs`), or of a sandbox process
 * that holds no credential (`SandboxedThreadJobs`). Resolves with the result as JSON; rejects
 * with a `JobError`.
 */
export interface TypeScriptThreads {
  start(): void;
  close(): Promise<void>;
  run(request: ThreadJobRequest, onLog: LogLineSink, options?: ScriptRunOptions): Promise<string>;
  /** Threads started and not ended, and jobs waiting for one (as last known). */
  stats(): ThreadStats;
}

export interface ThreadStats {
  readonly threads: number;
  readonly waiting: number;
  /** Threads started and free for any job (spares). */
  readonly ready?: number;
  /** Threads started, jobs that waited for one to start, jobs run on their run's kept thread. */
  readonly counters?: PoolCounters;
}

export interface ThreadJobsOptions extends TypeScriptPoolOptions {
  readonly maxResultBytes: number;
}

/** TypeScript jobs on a pool of warm threads of this process: time and memory limits, cancel. */
export class ThreadJobs implements TypeScriptThreads {
  private readonly pool: TypeScriptThreadPool;

  constructor(private readonly options: ThreadJobsOptions) {
    this.pool = new TypeScriptThreadPool(options);
  }

  start(): void {
    this.pool.start();
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  stats(): ThreadStats {
    return {
      threads: this.pool.size,
      waiting: this.pool.waiting,
      ready: this.pool.ready,
      counters: { ...this.pool.counters },
    };
  }

  async run(request: ThreadJobRequest, onLog: LogLineSink, options: ScriptRunOptions = {}): Promise<string> {
    const { signal, onStart } = options;
    // The wait for a thread is not the job's time: its limit starts when it runs.
    const thread = await this.pool
      .acquire(
        request.memoryMb,
        signal,
        request.realmKey,
        request.priority,
        request.trustKey ?? request.realmKey,
      )
      .catch((error: unknown) => {
        throw signal?.aborted ? jobErrors.canceled() : error;
      });
    // Cancelled while its thread started (no listener heard it then): the thread goes back unused.
    if (signal?.aborted) {
      this.pool.release(thread, true);
      throw jobErrors.canceled();
    }
    onStart?.();
    return new Promise<string>((resolve, reject) => {
      let settled = false;
      const finish = (outcome: { json: string } | { error: JobError }, afterwards: Afterwards): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearInterval(memoryCheck);
        signal?.removeEventListener('abort', onAbort);
        if (afterwards === 'reuse') this.pool.release(thread, true);
        else if (afterwards === 'keep-for-run')
          this.pool.keepForRun(thread, request.trustKey ?? request.realmKey, request.realmKey);
        else this.pool.retire(thread);
        if ('error' in outcome) reject(outcome.error);
        else resolve(outcome.json);
      };
      const timer = setTimeout(
        () => finish({ error: jobErrors.timeout(request.timeoutMs) }, 'retire'),
        request.timeoutMs,
      );
      const memoryCheck = setInterval(() => {
        thread.worker.getHeapStatistics().then(
          (heap) => {
            // The heap alone is V8's to bound (the thread's own limit, which collects garbage
            // first): counted here only beside buffers of some size, or an earlier run's dropped
            // realm, not yet collected, would count against this job.
            if (heap.external_memory < (request.memoryMb * MiB) / 8) return;
            if (heap.used_heap_size + heap.external_memory <= request.memoryMb * MiB) return;
            // Named as V8 names its own stop when the heap is most of it, so either says the same.
            const detail =
              heap.external_memory > heap.used_heap_size ? 'heap and buffers' : 'JavaScript heap';
            finish({ error: jobErrors.memory(request.memoryMb, detail) }, 'retire');
          },
          () => undefined, // the thread ended meanwhile: its exit says why
        );
      }, MEMORY_CHECK_MS);
      memoryCheck.unref();
      const onAbort = (): void => finish({ error: jobErrors.canceled() }, 'retire');
      signal?.addEventListener('abort', onAbort, { once: true });
      thread.listener = (event) => this.onEvent(event, request, thread, onLog, finish, options);
      thread.post(request.job);
    });
  }

  private onEvent(
    event: ThreadEvent,
    request: ThreadJobRequest,
    thread: JobThread,
    onLog: LogLineSink,
    finish: (outcome: { json: string } | { error: JobError }, afterwards: Afterwards) => void,
    options: ScriptRunOptions,
  ): void {
    switch (event.type) {
      case 'log':
        onLog(event.line);
        return;
      case 'preprocessed':
        options.onPreprocessed?.(JSON.parse(event.json) as Record<string, unknown>);
        return;
      case 'done': {
        const afterwards: Afterwards = event.reusable ? 'reuse' : event.keepsRun ? 'keep-for-run' : 'retire';
        if (!event.ok) {
          finish(
            { error: new JobError(event.error.name, event.error.message, event.error.stack) },
            afterwards,
          );
        } else if (event.json === undefined) {
          finish({ error: jobErrors.resultTooLarge(event.bytes, this.options.maxResultBytes) }, afterwards);
        } else {
          finish({ json: event.json }, afterwards);
        }
        return;
      }
      case 'exit':
        finish(
          {
            error: event.outOfMemory
              ? jobErrors.memory(thread.memoryMb, 'JavaScript heap')
              : new JobError('ExecutionErr', `job ${request.jobId}: ${event.message}`),
          },
          'retire',
        );
        return;
      case 'ready':
      case 'awaiting':
        return;
    }
  }
}
