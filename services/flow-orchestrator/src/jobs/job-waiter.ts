import { setTimeout as delay } from 'node:timers/promises';
import { isTerminalJobStatus, jobEvents, type JobResultReply } from '@flowmesh/contracts';
import { InjectMeshConnection, type MeshConnection } from '@flowmesh/messaging';
import { Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { JobRepository } from './job.repository.js';

const RECHECK_MS = 250;

/**
 * Waits for a job's end (or a flow's early result): the `completed` and `early_returned` events
 * wake a waiter, the database answers; it also looks again every quarter second, so a missed
 * event only delays the answer.
 */
@Injectable()
export class JobWaiter implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly waiters = new Map<string, Set<() => void>>();
  private subscription: ReturnType<MeshConnection['nc']['subscribe']> | undefined;

  constructor(
    @InjectMeshConnection() private readonly conn: MeshConnection,
    private readonly jobs: JobRepository,
  ) {}

  onApplicationBootstrap(): void {
    const subjects = new Set(
      [jobEvents.completed.subject, jobEvents.earlyReturned.subject].map((s) => this.conn.space.subject(s)),
    );
    this.subscription = this.conn.nc.subscribe(this.conn.space.subject('evt.job.*'), {
      callback: (error, message) => {
        if (error || !subjects.has(message.subject)) return;
        try {
          const { job_id } = JSON.parse(new TextDecoder().decode(message.data)) as { job_id?: string };
          if (job_id) for (const wake of this.waiters.get(job_id) ?? []) wake();
        } catch {
          // not ours to judge: the database answers anyway
        }
      },
    });
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
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
    }
  }

  private async check(workspace: string, id: string, earlyReturn: boolean): Promise<JobResultReply> {
    const rows = await this.jobs.query<{
      workspace: string;
      status: JobResultReply['status'];
      result: unknown;
      started: boolean;
      early: { value: unknown } | null;
    }>(
      `SELECT workspace, status, result, started_at IS NOT NULL AS started, runtime->'earlyResult' AS early FROM job WHERE id = $1`,
      [id],
    );
    const row = rows[0];
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
