import { setTimeout as delay } from 'node:timers/promises';
import { isTerminalJobStatus, jobEvents, type JobResultReply } from '@flowmesh/contracts';
import { InjectMeshConnection, listenToEvent, type MeshConnection } from '@flowmesh/messaging';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { JobStore } from '../store/job.store.js';

const RECHECK_MS = 250;
/** How long the subscriptions outlive the last waiter: a steady trickle of waits keeps them. */
const LINGER_MS = 10_000;

type Subscription = ReturnType<MeshConnection['nc']['subscribe']>;

/**
 * Waits for a job's end (or a flow's early result): the `completed` and `early_returned` events
 * wake a waiter, the database answers; it also looks again every quarter second, so a missed
 * event only delays the answer. It listens only while someone waits: every run's events would
 * otherwise wake this process for nothing.
 */
@Injectable()
export class JobWaiter implements OnModuleDestroy {
  private readonly waiters = new Map<string, Set<() => void>>();
  private subscriptions: Subscription[] = [];
  private idle: NodeJS.Timeout | undefined;
  private destroyed = false;

  constructor(
    @InjectMeshConnection() private readonly conn: MeshConnection,
    private readonly jobs: JobStore,
  ) {}

  onModuleDestroy(): void {
    this.destroyed = true;
    this.stopListening();
  }

  private listen(): void {
    clearTimeout(this.idle);
    this.idle = undefined;
    if (this.subscriptions.length > 0 || this.destroyed || this.conn.nc.isClosed()) return;
    // An event that does not parse wakes nobody: not ours to judge, the database answers anyway.
    this.subscriptions = [
      listenToEvent(this.conn, jobEvents.completed, ({ job_id }) => this.wake(job_id)),
      listenToEvent(this.conn, jobEvents.earlyReturned, ({ job_id }) => this.wake(job_id)),
    ];
  }

  private wake(jobId: string): void {
    for (const wake of this.waiters.get(jobId) ?? []) wake();
  }

  private stopListeningSoon(): void {
    if (this.idle || this.subscriptions.length === 0) return;
    this.idle = setTimeout(() => this.stopListening(), LINGER_MS);
    this.idle.unref();
  }

  private stopListening(): void {
    clearTimeout(this.idle);
    this.idle = undefined;
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.subscriptions = [];
  }

  async wait(
    workspace: string,
    id: string,
    timeoutMs: number,
    earlyReturn: boolean,
  ): Promise<JobResultReply> {
    const deadline = Date.now() + timeoutMs;
    let wake: () => void = () => undefined;
    const set = this.waiters.get(id) ?? new Set();
    this.waiters.set(id, set);
    this.listen();
    try {
      for (;;) {
        const woken = new Promise<void>((resolve) => {
          wake = resolve;
          set.add(resolve);
        });
        const reply = await this.check(workspace, id, earlyReturn);
        if (reply.completed || Date.now() >= deadline) return reply;
        const abort = new AbortController();
        await Promise.race([
          woken,
          delay(Math.min(RECHECK_MS, deadline - Date.now()), undefined, { signal: abort.signal }).catch(
            () => undefined,
          ),
        ]);
        abort.abort();
        set.delete(wake);
      }
    } finally {
      set.delete(wake);
      if (set.size === 0) this.waiters.delete(id);
      if (this.waiters.size === 0) this.stopListeningSoon();
    }
  }

  private async check(workspace: string, id: string, earlyReturn: boolean): Promise<JobResultReply> {
    const row = await this.jobs.resultState(id);
    if (!row || row.workspace !== workspace) {
      return { completed: false, result: null, started: false, status: 'queued' };
    }
    if (isTerminalJobStatus(row.status)) {
      return {
        completed: true,
        success: row.status === 'completed',
        result: row.result ?? null,
        started: true,
        status: row.status,
      };
    }
    if (earlyReturn && row.early) {
      return {
        completed: true,
        success: true,
        result: row.early.value ?? null,
        started: true,
        status: row.status,
      };
    }
    return { completed: false, result: null, started: row.started, status: row.status };
  }
}
