import { Injectable } from '@nestjs/common';
import { ConnectionLanes } from './connection-lanes.js';
import { decode, NOT_SCRIPT_KINDS, SELECT_COLUMNS, type RawRow } from './job-columns.js';
import type { JobRecord } from './job.record.js';
import { JobTokenStore } from './job-token.store.js';
import { JobStore } from './job.store.js';
import { workMessagesSql } from './outbox.store.js';
import type { SqlStatement } from './sql-batch.js';

const BATCH = 500;

/**
 * Which process drives or runs a job (`job.lease_owner`, `lease_until`): taken for a turn,
 * renewed while it lasts, handed back when a process stops, freed when its process died.
 */
@Injectable()
export class LeaseStore {
  constructor(
    private readonly lanes: ConnectionLanes,
    private readonly jobs: JobStore,
    private readonly tokens: JobTokenStore,
  ) {}

  /** Takes the job for `owner` unless another live process drives it; the row as of now. */
  async acquire(
    id: string,
    owner: string,
    ttlMs: number,
    options: { flowsOnly?: boolean; scriptIn?: string } = {},
  ): Promise<JobRecord | undefined> {
    const rows = await this.lanes.query<RawRow & { token_job: string; job_token: string | null }>(
      `UPDATE job SET lease_owner = $2, lease_until = now() + $3 * interval '1 millisecond'
       WHERE id = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < now())
         ${options.flowsOnly ? `AND kind IN ('flow','flowpreview')` : ''}
         ${options.scriptIn !== undefined ? `AND kind NOT IN (${[...NOT_SCRIPT_KINDS].map((kind) => `'${kind}'`).join(',')}) AND workspace = $4` : ''}
       RETURNING ${SELECT_COLUMNS}, lease_owner,
         COALESCE(runtime->>'tokenJob', id::text) AS token_job,
         (SELECT t.token FROM job_token t
          WHERE t.job_id = COALESCE((job.runtime->>'tokenJob')::uuid, job.id)) AS job_token`,
      options.scriptIn !== undefined ? [id, owner, ttlMs, options.scriptIn] : [id, owner, ttlMs],
    );
    const row = rows[0];
    if (!row) return undefined;
    // The driver will need the run's token for its first step: it came with the row.
    if (row.job_token) this.tokens.rememberLeased(row.token_job, row.job_token);
    const { token_job: _tokenJob, job_token: _token, ...record } = row;
    return decode(record);
  }

  /** Gives the job back; false when it was woken since `seenWakeSeq` (the caller drives it again). */
  async release(id: string, owner: string, seenWakeSeq: number): Promise<boolean> {
    const rows = await this.lanes.query<unknown>(
      `UPDATE job SET lease_owner = NULL, lease_until = NULL
       WHERE id = $1 AND lease_owner = $2 AND wake_seq = $3 RETURNING id`,
      [id, owner, seenWakeSeq],
    );
    return rows.length > 0;
  }

  /**
   * A stopping process lets go of a job it drove or ran, whatever woke it meanwhile, and queues a
   * work message for it besides the one it hands back: that one may be settled already (handed
   * back at the end of the grace), and a wake-up taken meanwhile by another process was counted
   * for this driver, which no longer looks. A second message finds the job driven and only counts.
   */
  handBack(id: string, owner: string): SqlStatement[] {
    return [
      {
        sql: `UPDATE job SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2`,
        params: [id, owner],
        jobRow: id,
      },
      ...this.jobs.wake(id, 'handed-back'),
    ];
  }

  /**
   * Extends the leases `owner` holds. A row locked at that moment (a group of flows' writes
   * commits it) is passed over until the next renewal, a third of a lease later: waiting for it
   * while holding the others could deadlock with such a group, which locks its rows in no set order.
   */
  async renew(owner: string, ttlMs: number): Promise<void> {
    await this.lanes.unprepared(
      `UPDATE job SET lease_until = now() + $2 * interval '1 millisecond'
       WHERE id IN (SELECT id FROM job WHERE lease_owner = $1 FOR UPDATE SKIP LOCKED) AND lease_owner = $1`,
      [owner, ttlMs],
    );
  }

  /** A process stopping hands its flow jobs back: released, and each queued to be driven elsewhere. */
  async releaseAll(owner: string): Promise<number> {
    const rows = await this.lanes.queryManyRows<unknown>(
      `WITH freed AS (
         UPDATE job SET lease_owner = NULL, lease_until = NULL, wake_seq = wake_seq + 1
         WHERE lease_owner = $1 AND status NOT IN ('completed','failed','cancelled')
         RETURNING id, tag, priority, workspace)
       ${workMessagesSql('freed RETURNING 1', `'released:' || id || ':' || gen_random_uuid()`)}`,
      [owner],
    );
    return rows.length;
  }

  /**
   * Frees the flow jobs whose driver stopped renewing its lease `graceMs` ago (its process died)
   * and queues a work message for each; how many.
   */
  async freeOrphans(graceMs: number): Promise<number> {
    const orphans = await this.lanes.query<unknown>(
      `WITH stale AS (
         SELECT id FROM job WHERE lease_owner IS NOT NULL
           AND lease_until < now() - $1 * interval '1 millisecond'
           AND status NOT IN ('completed','failed','cancelled')
         LIMIT ${BATCH} FOR UPDATE SKIP LOCKED),
       freed AS (
         UPDATE job j SET lease_owner = NULL, lease_until = NULL, wake_seq = j.wake_seq + 1 FROM stale
         WHERE j.id = stale.id RETURNING j.id, j.tag, j.priority, j.workspace)
       ${workMessagesSql('freed RETURNING 1', `'orphan:' || id || ':' || gen_random_uuid()`)}`,
      [graceMs],
    );
    return orphans.length;
  }
}
