import { Worker } from 'node:worker_threads';
import type { EvaluationOutcome, EvaluationRequest } from './quickjs-evaluator.js';
import type { ThreadReply, ThreadRequest } from './expression-sandbox.thread.js';

/**
 * QuickJS checks its interrupt handler only every few thousand instructions, so a loop of
 * expensive builtin calls (`for (;;) 'x'.repeat(1e6)`) can outlast its time limit by minutes.
 * Evaluations therefore run in worker threads, and a thread that has not answered in a few times
 * its limit (wall time, as seen from here) is ended and replaced: the limit holds whatever the
 * guest does. The margin is wide because the limit itself is the thread's CPU time (see
 * `quickjs-evaluator.ts`): a thread waiting for a core on a busy machine is not overrunning.
 */
const watchdogMs = (timeoutMs: number): number => Math.max(3 * timeoutMs, timeoutMs + 1_000);

interface Task {
  readonly request: EvaluationRequest;
  readonly resolve: (outcome: EvaluationOutcome) => void;
  readonly reject: (error: Error) => void;
}

interface SandboxThread {
  readonly worker: Worker;
  ready: boolean;
  task?: { readonly id: number; readonly task: Task; readonly watchdog: NodeJS.Timeout };
}

const THREAD_URL = new URL(
  `./expression-sandbox.thread${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

export class ExpressionThreadPool {
  private readonly threads = new Set<SandboxThread>();
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly size: number) {}

  /** Starts the threads now, so the first expression does not wait for WASM to load. */
  start(): void {
    while (!this.closed && this.threads.size < this.size) this.spawn();
  }

  run(request: EvaluationRequest): Promise<EvaluationOutcome> {
    if (this.closed) return Promise.reject(new Error('the expression sandbox is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      this.start();
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error('the expression sandbox is closed'));
    await Promise.all([...this.threads].map((thread) => this.retire(thread)));
  }

  private dispatch(): void {
    for (const thread of this.threads) {
      if (!thread.ready || thread.task) continue;
      const task = this.queue.shift();
      if (!task) return;
      const id = this.nextId++;
      const watchdog = setTimeout(() => this.overrun(thread), watchdogMs(task.request.timeoutMs));
      thread.task = { id, task, watchdog };
      const message: ThreadRequest = { id, request: task.request };
      thread.worker.postMessage(message);
    }
  }

  private spawn(): void {
    const worker = new Worker(THREAD_URL, { env: {}, resourceLimits: { maxOldGenerationSizeMb: 64 } });
    // The pool must not keep a process alive that is otherwise done.
    worker.unref();
    const thread: SandboxThread = { worker, ready: false };
    this.threads.add(thread);
    worker.on('message', (reply: ThreadReply) => {
      if ('ready' in reply) {
        thread.ready = true;
      } else if (thread.task?.id === reply.id) {
        const { task, watchdog } = thread.task;
        clearTimeout(watchdog);
        thread.task = undefined;
        task.resolve(reply.outcome);
      }
      this.dispatch();
    });
    worker.on('error', (error: Error) => this.lost(thread, error));
    worker.on('exit', (code) => this.lost(thread, new Error(`the sandbox thread exited with code ${code}`)));
  }

  /** The guest outran the interrupt handler: end the thread, report the timeout, replace it. */
  private overrun(thread: SandboxThread): void {
    const current = thread.task;
    if (!current) return;
    thread.task = undefined;
    current.task.resolve({
      ok: false,
      failure: 'timeout',
      reason: `TimeoutError: the expression did not finish within ${current.task.request.timeoutMs} ms`,
    });
    void this.retire(thread);
    this.start();
    this.dispatch();
  }

  private lost(thread: SandboxThread, error: Error): void {
    if (!this.threads.delete(thread)) return;
    const current = thread.task;
    thread.task = undefined;
    if (current) {
      clearTimeout(current.watchdog);
      current.task.resolve({ ok: false, failure: 'error', reason: `SandboxError: ${error.message}` });
    }
    if (!thread.ready) {
      // A thread that cannot even start would fail again: fail the waiting work instead of looping.
      for (const task of this.queue.splice(0))
        task.reject(new Error(`the expression sandbox did not start: ${error.message}`));
      return;
    }
    if (!this.closed) {
      this.start();
      this.dispatch();
    }
  }

  private async retire(thread: SandboxThread): Promise<void> {
    this.threads.delete(thread);
    if (thread.task) clearTimeout(thread.task.watchdog);
    await thread.worker.terminate();
  }
}
