import { Worker } from 'node:worker_threads';
import { REALMS_PER_THREAD, type ThreadJob, type ThreadOutbound } from './typescript-thread.protocol.js';

export interface TypeScriptPoolOptions {
  /** Started threads kept ready per memory limit, so a job does not wait for a thread to start. */
  readonly warmThreads: number;
  /** The memory limit warmed at start (the one most jobs ask for). */
  readonly defaultMemoryMb: number;
  /** A thread is replaced after this many jobs, to bound what a long life accumulates. */
  readonly jobsPerThread: number;
  /** Threads running jobs that compute, at most; threads whose job awaits I/O do not count. */
  readonly coreThreads: number;
  /** Threads at most, busy or idle; further jobs wait for one. */
  readonly maxThreads: number;
  /** Idle threads beyond the warm count, or of another memory limit, end after this long. */
  readonly idleMs: number;
  /** How long a job waits for the busy thread keeping its realm (ms); REALM_HOLD_MS unless set (tests). */
  readonly realmHoldMs?: number;
  /** How long a thread waits for its run's next step (ms); RUN_THREAD_KEEP_MS unless set (tests). */
  readonly runThreadKeepMs?: number;
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
  /** The realm keys this thread keeps, as it keeps them (least recently used first). */
  readonly realms = new Set<string>();
  /** Its job awaits something outside the thread (I/O, a timer): the thread's core is free. */
  awaiting = false;
  /** Not ready yet: it runs no job while it starts. */
  booting = true;
  /**
   * The authority (trust key) whose job reached into this thread's realm: the thread serves jobs
   * acting with it only, and is never idle for others.
   */
  keptFor: string | undefined;
  private exited = false;

  constructor(
    readonly worker: Worker,
    readonly memoryMb: number,
    onExit: (thread: JobThread) => void,
    onAwaiting: () => void,
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
      if (message.type === 'ready') {
        this.booting = false;
        markReady();
      } else if (message.type === 'awaiting') {
        this.awaiting = true;
        onAwaiting();
      } else this.listener?.(message);
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
    this.awaiting = false;
    if (job.realmKey !== undefined) {
      this.realms.delete(job.realmKey);
      this.realms.add(job.realmKey);
      if (this.realms.size > REALMS_PER_THREAD) this.realms.delete(this.realms.values().next().value!);
    }
    this.worker.postMessage({ type: 'run', job });
  }
}

/**
 * A thread's young generation (MiB), on top of the job's memory limit (its old generation). V8
 * lets it grow to ~48 MiB under a steady allocation rate, which light jobs do not need: capped,
 * 100 ten-step flows in flight ran on 70-95 MiB less worker memory (peak 891-897 -> 802-823 MiB)
 * and 7-11 % less worker CPU per step (scavenges of a small young space stay in cache).
 */
const YOUNG_GENERATION_MB = 8;

/**
 * How long the first waiter may be passed over for a waiter whose realm a free thread keeps.
 * Under load this makes each run stick to a thread (a run's next step waits while its last
 * thread serves others), which saves a realm per step; the bound keeps it fair.
 */
const AFFINITY_WAIT_MS = 250;

/**
 * How long a job may hold out for the busy thread keeping its run's realm while another thread
 * is free. Making a realm costs ~0.9 ms of CPU (~0.7 ms on the script thread, ~0.2 ms in V8's
 * helpers); the keeper, running another run's light step (0.1-1 ms), comes free within a
 * millisecond or two even on a loaded machine. Held longer, the wait would cost more latency
 * than the realm saves CPU; it also stays under AWAITING_AFTER_MS, past which a job that did not
 * report awaiting is known to compute for long.
 */
const REALM_HOLD_MS = 5;

/**
 * How long a thread a run's step reached into (an import) waits for that run's next step. Steps
 * of a run follow each other within milliseconds unless one waits (a sleep, an approval), when
 * keeping the thread buys nothing. A waiting job of another run that needs room ends it sooner.
 */
const RUN_THREAD_KEEP_MS = 1_000;

/** What the pool counted, for metrics and tests. */
export interface PoolCounters {
  /** Threads started. */
  started: number;
  /** Jobs whose thread was still starting when they got it: they waited for a start. */
  bootWaits: number;
  /** Jobs that ran on a thread an earlier step of their run reached into, instead of a new one. */
  runThreadReuses: number;
}

/**
 * A job waiting for a thread: every thread the pool may have is busy, or the thread keeping its
 * realm is (`keeper`, until REALM_HOLD_MS runs out).
 */
interface Waiter {
  readonly memoryMb: number;
  readonly realmKey: string | undefined;
  /** Whose kept thread it may take: its trust key (or, without one, its realm key). */
  readonly owner: string | undefined;
  readonly priority: number;
  readonly since: number;
  keeper: JobThread | undefined;
  readonly resolve: (thread: JobThread) => void;
  readonly reject: (error: Error) => void;
}

/**
 * Worker threads for TypeScript jobs, kept warm per memory limit (a thread's heap limit is set
 * when it starts). A thread is reused only when its last job reports it clean; anything else
 * (an import, a host global, a timeout, an escaped error) retires it and a replacement starts
 * in the background.
 *
 * How many: light jobs run best on few threads (a thread per job costs a start, a heap, and
 * threads fighting over the cores: measured, a trivial job's thread time grew 13-fold from 4
 * threads to 32). Jobs that await I/O hold their thread while they wait, though. So at most
 * `coreThreads` threads run jobs that compute; a thread whose job reports it only awaits
 * (`awaiting`) does not count, up to `maxThreads` in all; extra threads go when idle.
 *
 * Which: a run's steps go to the thread keeping its realm. Idle, it is taken; busy computing,
 * the step waits for it up to REALM_HOLD_MS while other jobs take the idle threads (100
 * ten-step runs in flight on the runner alone: 0.27-0.29 realms made a step without this,
 * 0.11-0.17 with it, 0.1 the floor); freed, it goes to a waiter of its realms before others of
 * the same priority (AFFINITY_WAIT_MS).
 */
export class TypeScriptThreadPool {
  private readonly idle = new Map<number, JobThread[]>();
  private readonly starting = new Map<number, number>();
  private readonly all = new Set<JobThread>();
  private readonly idleTimers = new Map<JobThread, NodeJS.Timeout>();
  private readonly waiters: Waiter[] = [];
  /** Threads kept for their run's next step (`JobThread.keptFor`), one a run, with their end. */
  private readonly runThreads = new Map<string, { thread: JobThread; timer: NodeJS.Timeout }>();
  /** Memory limits whose spare threads are to be topped up once the current job is on its way. */
  private readonly refillDue = new Set<number>();
  private closed = false;
  readonly counters: PoolCounters = { started: 0, bootWaits: 0, runThreadReuses: 0 };

  constructor(private readonly options: TypeScriptPoolOptions) {}

  start(): void {
    this.fill(this.options.defaultMemoryMb);
  }

  /** Jobs waiting for a thread (a gauge for the worker's metrics and tests). */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Threads started and not ended. */
  get size(): number {
    return this.all.size;
  }

  /** Threads started and free for any job: the spares a job takes without waiting for a start. */
  get ready(): number {
    let ready = 0;
    for (const list of this.idle.values()) ready += list.filter((thread) => thread.alive).length;
    return ready;
  }

  /**
   * A ready thread with this heap limit: a warm one, else a new one while the pool has room,
   * else the next one released. A job whose realm a computing thread keeps waits a little for
   * that thread (REALM_HOLD_MS) rather than make its realm again elsewhere. `signal` gives up
   * the place in the queue.
   */
  async acquire(
    memoryMb: number,
    signal?: AbortSignal,
    realmKey?: string,
    priority = 0,
    owner: string | undefined = realmKey,
  ): Promise<JobThread> {
    if (this.closed) throw new Error('the TypeScript runner is closed');
    // A thread an earlier job of this authority reached into serves no one else: taking it passes no one.
    const kept = this.takeRunThread(memoryMb, owner);
    if (kept) return kept;
    const keeper = this.busyKeeper(memoryMb, realmKey, owner);
    let thread =
      this.waiters.length === 0 && !keeper
        ? (this.takeIdle(memoryMb, realmKey) ?? this.spawnWithinLimit(memoryMb))
        : undefined;
    if (!thread) {
      thread = await new Promise<JobThread>((resolve, reject) => {
        let hold: NodeJS.Timeout | undefined;
        const waiter: Waiter = {
          memoryMb,
          realmKey,
          owner,
          priority,
          since: Date.now(),
          keeper,
          resolve: (given) => {
            clearTimeout(hold);
            signal?.removeEventListener('abort', onAbort);
            resolve(given);
          },
          reject: (error) => {
            clearTimeout(hold);
            reject(error);
          },
        };
        const onAbort = (): void => {
          const index = this.waiters.indexOf(waiter);
          if (index !== -1) this.waiters.splice(index, 1);
          waiter.reject(new Error('aborted while waiting for a thread'));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        // Past the hold it takes any thread, as a job whose realm no busy thread keeps.
        if (keeper) hold = setTimeout(() => this.endHold(waiter), this.options.realmHoldMs ?? REALM_HOLD_MS);
        // Higher priority first; first come, first served among equals.
        const after = this.waiters.findIndex((queued) => queued.priority < priority);
        if (after === -1) this.waiters.push(waiter);
        else this.waiters.splice(after, 0, waiter);
        this.serveWaiters();
      });
    }
    this.refill(memoryMb);
    if (thread.booting) this.counters.bootWaits += 1;
    await thread.ready;
    return thread;
  }

  /** Back to the pool when clean and young enough, else ended and replaced. */
  release(thread: JobThread, reusable: boolean): void {
    // Once a run's, never anyone else's.
    if (thread.keptFor !== undefined) return this.keepForRun(thread, thread.keptFor);
    thread.listener = undefined;
    if (this.closed || !reusable || !thread.alive || thread.jobs >= this.options.jobsPerThread) {
      this.retire(thread);
      this.refill(thread.memoryMb);
      return;
    }
    const waiter = this.nextWaiterFor(thread);
    if (waiter) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve(thread);
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
    // A waiter for another memory limit gets room: this idle thread makes way for its thread.
    this.serveWaiters();
  }

  /**
   * A thread whose job reached into its realm, kept for the next job acting with the same
   * authority (`owner`: its token's trust key, else its run's realm key; who may do what those
   * jobs do may see what they changed): a waiting job of that authority gets it now, else it waits
   * a while (RUN_THREAD_KEEP_MS) and ends. A thread without an owner is retired. `realmKey`: the
   * realm of the job that made it so, the one realm a newly kept thread keeps.
   */
  keepForRun(thread: JobThread, owner: string | undefined, realmKey?: string): void {
    thread.listener = undefined;
    if (this.closed || owner === undefined || !thread.alive || thread.jobs >= this.options.jobsPerThread) {
      this.retire(thread);
      this.refill(thread.memoryMb);
      return;
    }
    if (thread.keptFor !== undefined && thread.keptFor !== owner) {
      this.retire(thread);
      return;
    }
    if (thread.keptFor === undefined) {
      // The thread dropped the realms of others: no job of another authority is to wait for it.
      thread.realms.clear();
      if (realmKey !== undefined) thread.realms.add(realmKey);
    }
    thread.keptFor = owner;
    const waiter =
      this.waiters.find(
        (queued) =>
          queued.owner === owner &&
          queued.memoryMb === thread.memoryMb &&
          queued.realmKey !== undefined &&
          thread.realms.has(queued.realmKey),
      ) ?? this.waiters.find((queued) => queued.owner === owner && queued.memoryMb === thread.memoryMb);
    if (waiter) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      this.counters.runThreadReuses += 1;
      waiter.resolve(thread);
      return;
    }
    const previous = this.runThreads.get(owner);
    if (previous) this.retire(previous.thread);
    // Bounded: a run that ended leaves its thread here until its time runs out or room is needed.
    if (this.runThreads.size >= this.options.coreThreads) this.endOldestRunThread();
    const timer = setTimeout(() => this.retire(thread), this.options.runThreadKeepMs ?? RUN_THREAD_KEEP_MS);
    timer.unref();
    this.runThreads.set(owner, { thread, timer });
    // Waiting jobs of other runs may need the room it takes.
    this.serveWaiters();
  }

  retire(thread: JobThread): void {
    thread.listener = undefined;
    this.forgetRunThread(thread);
    this.all.delete(thread);
    const idle = this.idle.get(thread.memoryMb);
    const index = idle?.indexOf(thread) ?? -1;
    if (idle && index !== -1) idle.splice(index, 1);
    clearTimeout(this.idleTimers.get(thread));
    this.idleTimers.delete(thread);
    void thread.worker.terminate();
    this.serveWaiters();
  }

  async close(): Promise<void> {
    this.closed = true;
    const threads = [...this.all];
    this.idle.clear();
    for (const { timer } of this.runThreads.values()) clearTimeout(timer);
    this.runThreads.clear();
    for (const waiter of this.waiters.splice(0)) waiter.reject(new Error('the TypeScript runner is closed'));
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }

  /**
   * Who gets a thread coming free: a waiter of the first one's priority whose run keeps a realm
   * on it (no realm to make), unless the first in line has waited long enough to go first anyway;
   * else the next to serve.
   */
  private nextWaiterFor(thread: JobThread): Waiter | undefined {
    let first: Waiter | undefined;
    const overdue = Date.now() - AFFINITY_WAIT_MS;
    for (const waiter of thread.realms.size > 0 ? this.waiters : []) {
      if (waiter.memoryMb !== thread.memoryMb) continue;
      first ??= waiter;
      // Keeping a realm never lets a job pass one of higher priority.
      if (first.since < overdue || waiter.priority < first.priority) break;
      if (waiter.realmKey !== undefined && thread.realms.has(waiter.realmKey)) return waiter;
    }
    return this.nextToServe(thread.memoryMb);
  }

  /**
   * The first in line (of this limit, if given) not holding out for its realm's thread. A job
   * never passes a waiting job of higher priority, though: one holding out goes first instead.
   */
  private nextToServe(memoryMb?: number): Waiter | undefined {
    let holding: Waiter | undefined;
    for (const waiter of this.waiters) {
      if (memoryMb !== undefined && waiter.memoryMb !== memoryMb) continue;
      if (this.holdsOut(waiter)) {
        holding ??= waiter;
        continue;
      }
      return holding && holding.priority > waiter.priority ? holding : waiter;
    }
    return undefined;
  }

  /** The waiter's realm keeper is still running a job that computes, and the hold has not run out. */
  private holdsOut(waiter: Waiter): boolean {
    const keeper = waiter.keeper;
    return keeper !== undefined && keeper.alive && !keeper.awaiting && !this.isIdle(keeper);
  }

  private endHold(waiter: Waiter): void {
    waiter.keeper = undefined;
    this.serveWaiters();
  }

  /**
   * A thread keeping the realm of `realmKey` while it runs a job that computes, when no idle
   * thread keeps it: a job of that realm is better off waiting a little for it.
   */
  private busyKeeper(
    memoryMb: number,
    realmKey: string | undefined,
    owner: string | undefined,
  ): JobThread | undefined {
    if (realmKey === undefined) return undefined;
    let busy: JobThread | undefined;
    for (const thread of this.all) {
      if (thread.memoryMb !== memoryMb || !thread.alive || !thread.realms.has(realmKey)) continue;
      if (thread.keptFor !== undefined && thread.keptFor !== owner) continue;
      if (this.isIdle(thread)) return undefined;
      if (!thread.awaiting) busy ??= thread;
    }
    return busy;
  }

  private isIdle(thread: JobThread): boolean {
    return this.idle.get(thread.memoryMb)?.includes(thread) ?? false;
  }

  /** An idle thread of this limit, preferably one keeping the realm of `realmKey`. */
  private takeIdle(memoryMb: number, realmKey?: string): JobThread | undefined {
    const idle = this.idle.get(memoryMb);
    if (idle && realmKey !== undefined) {
      const index = idle.findIndex((thread) => thread.alive && thread.realms.has(realmKey));
      if (index !== -1) {
        const [kept] = idle.splice(index, 1);
        clearTimeout(this.idleTimers.get(kept));
        this.idleTimers.delete(kept);
        return kept;
      }
    }
    // Else the thread idle longest: the ones just freed keep realms of runs about to come back.
    while (idle && idle.length > 0) {
      const candidate = idle.shift()!;
      clearTimeout(this.idleTimers.get(candidate));
      this.idleTimers.delete(candidate);
      if (candidate.alive) return candidate;
    }
    return undefined;
  }

  /**
   * Room for threads: the core count, plus one for each thread whose job only awaits, plus one
   * for each thread still starting (at most the core count of them). A start costs ~50 ms of CPU
   * but seconds of wall time on a loaded machine; counted as a core, it left that core unused
   * meanwhile, and with many jobs retiring their threads (imports) the pool ran at the pace of
   * thread starts: steps queued 2-9 s in the conformance suite (1.5 s at most with this).
   */
  private limit(): number {
    let awaiting = 0;
    let booting = 0;
    for (const thread of this.all) {
      if (thread.awaiting && thread.listener) awaiting += 1;
      if (thread.booting && thread.alive) booting += 1;
    }
    const { coreThreads, maxThreads } = this.options;
    return Math.min(maxThreads, coreThreads + awaiting + Math.min(booting, coreThreads));
  }

  /**
   * A new thread if the pool has room, making room by ending a thread kept for a run's next step
   * (the oldest kept), else an idle thread of another limit.
   */
  private spawnWithinLimit(memoryMb: number): JobThread | undefined {
    if (this.all.size >= this.limit() && !this.endOldestRunThread()) {
      const other = [...this.idle.entries()].find(([limit, list]) => limit !== memoryMb && list.length > 0);
      if (!other) return undefined;
      this.retireQuietly(other[1].pop()!);
    }
    return this.spawn(memoryMb);
  }

  /** Ends the thread kept longest for a run's next step, if any: room for a thread anyone may use. */
  private endOldestRunThread(): boolean {
    const oldest = this.runThreads.values().next().value?.thread;
    if (oldest) this.retireQuietly(oldest);
    return oldest !== undefined;
  }

  /** The thread kept for this authority's next job, if it has one of this limit. */
  private takeRunThread(memoryMb: number, owner: string | undefined): JobThread | undefined {
    if (owner === undefined) return undefined;
    const kept = this.runThreads.get(owner);
    if (!kept || kept.thread.memoryMb !== memoryMb || !kept.thread.alive) return undefined;
    this.forgetRunThread(kept.thread);
    this.counters.runThreadReuses += 1;
    return kept.thread;
  }

  private forgetRunThread(thread: JobThread): void {
    if (thread.keptFor === undefined) return;
    const kept = this.runThreads.get(thread.keptFor);
    if (kept?.thread !== thread) return;
    clearTimeout(kept.timer);
    this.runThreads.delete(thread.keptFor);
  }

  /**
   * Waiters in order (passing those holding out for their realm's thread), each with an idle
   * thread of its limit or a new one, while room lasts.
   */
  private serveWaiters(): void {
    while (!this.closed) {
      const waiter = this.nextToServe();
      if (!waiter) return;
      const thread =
        this.takeIdle(waiter.memoryMb, waiter.realmKey) ?? this.spawnWithinLimit(waiter.memoryMb);
      if (!thread) return;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve(thread);
    }
  }

  private retireQuietly(thread: JobThread): void {
    this.forgetRunThread(thread);
    this.all.delete(thread);
    clearTimeout(this.idleTimers.get(thread));
    this.idleTimers.delete(thread);
    void thread.worker.terminate();
  }

  /**
   * Tops up the spare threads of this limit once the job at hand is on its way: a thread's
   * construction takes ~0.3 ms of the caller's thread, which the job would otherwise wait for.
   */
  private refill(memoryMb: number): void {
    if (this.closed || this.refillDue.has(memoryMb)) return;
    this.refillDue.add(memoryMb);
    setImmediate(() => {
      this.refillDue.delete(memoryMb);
      this.fill(memoryMb);
    });
  }

  private fill(memoryMb: number): void {
    if (this.closed) return;
    const have = (this.idle.get(memoryMb)?.length ?? 0) + (this.starting.get(memoryMb) ?? 0);
    for (let i = have; i < this.options.warmThreads; i++) {
      // A spare serves any job; a thread kept for a run, only that run's next step.
      if (this.all.size >= this.limit() && !this.endOldestRunThread()) return;
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
      resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
      stdout: true,
      stderr: true,
    });
    worker.unref();
    const thread = new JobThread(
      worker,
      memoryMb,
      (ended) => {
        this.forgetRunThread(ended);
        this.all.delete(ended);
        const idle = this.idle.get(ended.memoryMb);
        const index = idle?.indexOf(ended) ?? -1;
        if (idle && index !== -1) {
          idle.splice(index, 1);
          this.refill(ended.memoryMb);
        }
        this.serveWaiters();
      },
      // A job that only awaits frees its core: a waiting job may get a thread of its own.
      () => this.serveWaiters(),
    );
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
    this.counters.started += 1;
    return thread;
  }
}
