import { Worker } from 'node:worker_threads';
import type { ThreadJob, ThreadOutbound } from './typescript-thread.protocol.js';

export interface TypeScriptPoolOptions {
  /** Started threads kept ready per memory limit, so a job does not wait for a thread to start. */
  readonly warmThreads: number;
  /** The memory limit warmed at start (the one most jobs ask for). */
  readonly defaultMemoryMb: number;
  /** A thread is replaced after this many jobs, to bound what a long life accumulates. */
  readonly jobsPerThread: number;
  /** Idle threads beyond the warm count, or of another memory limit, end after this long. */
  readonly idleMs: number;
}

/** What a job's thread reported, or how the thread ended. */
export type ThreadEvent =
  ThreadOutbound | { readonly type: 'exit'; readonly outOfMemory: boolean; readonly message: string };

const THREAD_URL = new URL(
  `./typescript-job.thread${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

export class JobThread {
  readonly ready: Promise<void>;
  jobs = 0;
  listener?: (event: ThreadEvent) => void;
  private exited = false;

  constructor(
    readonly worker: Worker,
    readonly memoryMb: number,
    onExit: (thread: JobThread) => void,
  ) {
    let markReady: () => void = () => undefined;
    let failStart: (error: Error) => void = () => undefined;
    this.ready = new Promise((resolve, reject) => {
      markReady = resolve;
      failStart = reject;
    });
    // A thread that dies before it is used is noticed by its user, not as an unhandled rejection.
    this.ready.catch(() => undefined);
    worker.on('message', (message: ThreadOutbound) => {
      if (message.type === 'ready') markReady();
      else this.listener?.(message);
    });
    let lastError: Error | undefined;
    worker.on('error', (error: Error) => {
      lastError = error;
    });
    worker.on('exit', (code) => {
      this.exited = true;
      const outOfMemory = (lastError as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
      const message = lastError?.message ?? `the script's thread exited with code ${code}`;
      failStart(new Error(message));
      this.listener?.({ type: 'exit', outOfMemory, message });
      onExit(this);
    });
  }

  get alive(): boolean {
    return !this.exited;
  }

  post(job: ThreadJob): void {
    this.jobs += 1;
    this.worker.postMessage({ type: 'run', job });
  }
}

/**
 * Worker threads for TypeScript jobs, kept warm per memory limit (a thread's heap limit is set
 * when it starts). A thread is reused only when its last job reports it clean; anything else
 * (an import, a host global, a timeout, an escaped error) retires it and a replacement starts
 * in the background.
 */
export class TypeScriptThreadPool {
  private readonly idle = new Map<number, JobThread[]>();
  private readonly starting = new Map<number, number>();
  private readonly all = new Set<JobThread>();
  private readonly idleTimers = new Map<JobThread, NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly options: TypeScriptPoolOptions) {}

  start(): void {
    this.refill(this.options.defaultMemoryMb);
  }

  /** A ready thread with this heap limit: a warm one, else a new one. */
  async acquire(memoryMb: number): Promise<JobThread> {
    if (this.closed) throw new Error('the TypeScript runner is closed');
    const idle = this.idle.get(memoryMb);
    let thread: JobThread | undefined;
    while (idle && idle.length > 0 && !thread) {
      const candidate = idle.pop()!;
      if (candidate.alive) thread = candidate;
    }
    if (thread) {
      clearTimeout(this.idleTimers.get(thread));
      this.idleTimers.delete(thread);
    } else {
      thread = this.spawn(memoryMb);
    }
    this.refill(memoryMb);
    await thread.ready;
    return thread;
  }

  /** Back to the pool when clean and young enough, else ended and replaced. */
  release(thread: JobThread, reusable: boolean): void {
    thread.listener = undefined;
    if (this.closed || !reusable || !thread.alive || thread.jobs >= this.options.jobsPerThread) {
      this.retire(thread);
      this.refill(thread.memoryMb);
      return;
    }
    const idle = this.idle.get(thread.memoryMb) ?? [];
    this.idle.set(thread.memoryMb, idle);
    idle.push(thread);
    // Threads beyond the warm count served a burst: they stay a while for the next one.
    if (thread.memoryMb !== this.options.defaultMemoryMb || idle.length > this.options.warmThreads) {
      const timer = setTimeout(() => {
        const list = this.idle.get(thread.memoryMb);
        const index = list?.indexOf(thread) ?? -1;
        if (list && index !== -1) list.splice(index, 1);
        this.retire(thread);
      }, this.options.idleMs);
      timer.unref();
      this.idleTimers.set(thread, timer);
    }
  }

  retire(thread: JobThread): void {
    thread.listener = undefined;
    this.all.delete(thread);
    clearTimeout(this.idleTimers.get(thread));
    this.idleTimers.delete(thread);
    void thread.worker.terminate();
  }

  async close(): Promise<void> {
    this.closed = true;
    const threads = [...this.all];
    this.idle.clear();
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }

  private refill(memoryMb: number): void {
    if (this.closed) return;
    const have = (this.idle.get(memoryMb)?.length ?? 0) + (this.starting.get(memoryMb) ?? 0);
    for (let i = have; i < this.options.warmThreads; i++) {
      const thread = this.spawn(memoryMb);
      this.starting.set(memoryMb, (this.starting.get(memoryMb) ?? 0) + 1);
      const settle = (): void => {
        this.starting.set(memoryMb, (this.starting.get(memoryMb) ?? 1) - 1);
      };
      thread.ready.then(() => {
        settle();
        this.release(thread, true);
      }, settle);
    }
  }

  private spawn(memoryMb: number): JobThread {
    const worker = new Worker(THREAD_URL, {
      env: {},
      // Type stripping may warn that it is experimental: not the job's output.
      execArgv: ['--disable-warning=ExperimentalWarning'],
      resourceLimits: { maxOldGenerationSizeMb: memoryMb },
      stdout: true,
      stderr: true,
    });
    worker.unref();
    const thread = new JobThread(worker, memoryMb, (ended) => {
      this.all.delete(ended);
      const idle = this.idle.get(ended.memoryMb);
      const index = idle?.indexOf(ended) ?? -1;
      if (idle && index !== -1) {
        idle.splice(index, 1);
        this.refill(ended.memoryMb);
      }
    });
    // Output written through the thread's own process.stdout (a package the job imported, say)
    // belongs to the job running there.
    for (const stream of [worker.stdout, worker.stderr]) {
      let partial = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) thread.listener?.({ type: 'log', line });
      });
    }
    this.all.add(thread);
    return thread;
  }
}
