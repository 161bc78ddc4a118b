import { Injectable } from '@nestjs/common';
import { ConnectionLanes, type Query } from './connection-lanes.js';
import type { SqlStatement } from './sql-batch.js';

/** The job holding a debounce key now, and its batch so far. */
export interface DebounceHolder {
  job_id: string;
  first_at: Date;
  debounced_times: number;
  args: Record<string, unknown> | null;
  status: string | null;
  parent_job: string | null;
  /** Its run started after the run of `rootJob` (`DebounceStore.batch`). */
  newer: boolean | null;
}

/** A debounce key's batch, inside the transaction that holds the key's lock. */
export interface DebounceBatch {
  /** The job holding the key, if any. */
  holder(): Promise<DebounceHolder | undefined>;
  /** Ends a queued holder completed and skipped with `result`; false when it was no longer queued. */
  endReplaced(jobId: string, result: unknown, options: { clearWake: boolean }): Promise<boolean>;
  /** Sets a queued holder's arguments; false when it was no longer queued. */
  setArgs(jobId: string, args: Record<string, unknown>): Promise<boolean>;
  /** `jobId` holds the key from now on, its batch opened at `firstAt` with `times` debounced. */
  hold(jobId: string, firstAt: Date, times: number): Promise<void>;
  /** The key is free: the next run opens a new batch. */
  free(): Promise<void>;
  /** Other statements of the same transaction, in order. */
  write(statements: readonly SqlStatement[]): Promise<void>;
}

/** `debounce_key`: which queued job (a flow run or a step) holds a debounce key now. */
@Injectable()
export class DebounceStore {
  constructor(private readonly lanes: ConnectionLanes) {}

  /**
   * Runs `work` on the batch of `key` in one transaction, after `before` and holding the key's
   * lock. `rootJob`: the run whose `newer` the holder is compared with.
   */
  batch<T>(
    key: string,
    rootJob: string | null,
    before: readonly SqlStatement[],
    work: (batch: DebounceBatch) => Promise<T>,
  ): Promise<T> {
    return this.lanes.transaction(async (query) => {
      const batch = new TransactionBatch(query, key, rootJob);
      await batch.write(before);
      await query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`debounce:${key}`]);
      return work(batch);
    });
  }

  /**
   * Takes a debounced job out of its batch as it starts: its row turns `running` (a replacement
   * only ever takes a `queued` one) and its key is released, in one statement. Its arguments as
   * they are now; undefined when it was replaced first (it ended).
   */
  async claim(jobId: string): Promise<{ args: Record<string, unknown> } | undefined> {
    const [claimed] = await this.lanes.query<{ args: Record<string, unknown> }>(
      `WITH claimed AS (
         UPDATE job SET status = 'running', started_at = COALESCE(started_at, now())
         WHERE id = $1 AND status IN ('queued', 'running') RETURNING id, args),
       released AS (
         DELETE FROM debounce_key WHERE job_id IN (SELECT id FROM claimed) RETURNING 1)
       SELECT args FROM claimed`,
      [jobId],
    );
    return claimed;
  }
}

class TransactionBatch implements DebounceBatch {
  constructor(
    private readonly query: Query,
    private readonly key: string,
    private readonly rootJob: string | null,
  ) {}

  async holder(): Promise<DebounceHolder | undefined> {
    const [holder] = await this.query<DebounceHolder>(
      `SELECT d.job_id, d.first_at, d.debounced_times, j.args, j.status, j.parent_job,
              (SELECT created_at FROM job WHERE id = j.root_job) > (SELECT created_at FROM job WHERE id = $2) AS newer
       FROM debounce_key d LEFT JOIN job j ON j.id = d.job_id WHERE d.key = $1`,
      [this.key, this.rootJob],
    );
    return holder;
  }

  async endReplaced(jobId: string, result: unknown, options: { clearWake: boolean }): Promise<boolean> {
    const ended = await this.query(
      `UPDATE job SET status = 'completed', skipped = true, result = $2::jsonb, completed_at = now(),
         started_at = COALESCE(started_at, now()), duration_ms = 0${options.clearWake ? ', wake_at = NULL' : ''}
       WHERE id = $1 AND status = 'queued' RETURNING id`,
      [jobId, JSON.stringify(result ?? null)],
    );
    return ended.length > 0;
  }

  async setArgs(jobId: string, args: Record<string, unknown>): Promise<boolean> {
    const kept = await this.query(
      `UPDATE job SET args = $2::jsonb WHERE id = $1 AND status = 'queued' RETURNING id`,
      [jobId, JSON.stringify(args)],
    );
    return kept.length > 0;
  }

  async hold(jobId: string, firstAt: Date, times: number): Promise<void> {
    await this.query(
      `INSERT INTO debounce_key (key, job_id, first_at, debounced_times) VALUES ($1, $2, $3, $4)
       ON CONFLICT (key) DO UPDATE SET job_id = EXCLUDED.job_id, first_at = EXCLUDED.first_at,
         debounced_times = EXCLUDED.debounced_times`,
      [this.key, jobId, firstAt, times],
    );
  }

  async free(): Promise<void> {
    await this.query(`DELETE FROM debounce_key WHERE key = $1`, [this.key]);
  }

  async write(statements: readonly SqlStatement[]): Promise<void> {
    for (const statement of statements) await this.query(statement.sql, statement.params);
  }
}
