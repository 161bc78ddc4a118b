import { randomUUID } from 'node:crypto';
import type { EventContract, JobKind, JobResultReply, JobStatus } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { ConnectionLanes } from './connection-lanes.js';
import {
  decode,
  encode,
  JSON_COLUMNS,
  SELECT_COLUMNS,
  COLUMNS,
  type Column,
  type RawRow,
} from './job-columns.js';
import type { JobRecord, JobRuntime } from './job.record.js';
import { dispatchStatement, eventStatement, workMessagesSql } from './outbox.store.js';
import type { SqlStatement } from './sql-batch.js';

const TERMINAL_COLUMNS = [
  'status',
  'result',
  'args',
  'runtime',
  'started_at',
  'completed_at',
  'duration_ms',
  'skipped',
  'delete_after',
];
const BATCH = 500;

/** How a job ends (`finish`). */
export interface JobEnd {
  readonly status: JobStatus;
  readonly result: unknown;
  readonly skipped?: boolean;
  readonly flow_status?: unknown;
  readonly runtime?: JobRuntime;
  /**
   * An AI step's last actions, appended to `runtime.agentActions` / `agentActionsSuccess` by the
   * same write that ends it (not with `runtime`, which replaces the whole of it).
   */
  readonly appendAgentActions?: readonly { readonly action: unknown; readonly success: boolean }[];
  /** When it started, if the row does not say yet. */
  readonly startedAt?: Date;
}

export type NewJob = Omit<JobRecord, 'wake_seq' | 'created_at'> & { created_at?: Date };
export type JobUpdate = Partial<Omit<JobRecord, 'id' | 'wake_seq'>>;

/**
 * The `job` table (and the log lines written with a job), in SQL: the engine's hot path writes a step's result, its flow's status and
 * the messages they cause as one statement (`combineStatements`), so every builder here returns
 * a statement and `execute` runs a batch of them.
 */
@Injectable()
export class JobStore {
  constructor(private readonly lanes: ConnectionLanes) {}

  /** Runs statements as one (`combineStatements`); the rows of the last. */
  execute<Row = Record<string, unknown>>(
    statements: readonly SqlStatement[],
    finalSql?: string,
  ): Promise<Row[]> {
    return this.lanes.execute<Row>(statements, finalSql);
  }

  // ---- statements ---------------------------------------------------------------------------

  /**
   * A new job row. `lease` makes this process its driver from the start (a child flow driven
   * in-process); `upsert` replaces the terminal fields of a row written earlier (a long step's
   * running row gets its result).
   */
  insert(
    job: NewJob,
    options: {
      onConflictDoNothing?: boolean;
      upsert?: boolean;
      lease?: { owner: string; ttlMs: number };
    } = {},
  ): SqlStatement {
    const columns = COLUMNS.filter((column) => column !== 'created_at' || job.created_at !== undefined);
    const params = columns.map((column) => encode(column, job[column as keyof NewJob]));
    const values = columns.map((column, i) => (JSON_COLUMNS.has(column) ? `$${i + 1}::jsonb` : `$${i + 1}`));
    const names: string[] = [...columns];
    const deleteAfterSecs = job.runtime?.deleteAfterSecs;
    if (deleteAfterSecs !== undefined && job.completed_at) {
      params.push(new Date(job.completed_at.getTime() + deleteAfterSecs * 1000));
      names.push('delete_after');
      values.push(`$${params.length}`);
    }
    if (options.lease) {
      params.push(options.lease.owner, options.lease.ttlMs);
      names.push('lease_owner', 'lease_until');
      values.push(`$${params.length - 1}`, `now() + $${params.length} * interval '1 millisecond'`);
    }
    let conflict = '';
    if (options.onConflictDoNothing) conflict = ' ON CONFLICT (id) DO NOTHING';
    if (options.upsert) {
      conflict = ` ON CONFLICT (id) DO UPDATE SET ${TERMINAL_COLUMNS.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`;
    }
    return {
      sql: `INSERT INTO job (${names.join(', ')}) VALUES (${values.join(', ')})${conflict}`,
      params,
      jobRow: job.id,
    };
  }

  /** Sets the given fields; RETURNING the cancel request so a driver learns of it for free. */
  update(id: string, fields: JobUpdate, extraSet: readonly string[] = []): SqlStatement {
    return this.updateEncoded(id, this.encodeUpdate(fields), extraSet);
  }

  /** The fields of an update as they will be sent, encoded now (a snapshot of mutable state). */
  encodeUpdate(fields: JobUpdate): Map<string, unknown> {
    const encoded = new Map<string, unknown>();
    for (const [column, value] of Object.entries(fields))
      if (value !== undefined) encoded.set(column, encode(column as Column, value));
    return encoded;
  }

  /** `update` of fields encoded earlier (`encodeUpdate`). */
  updateEncoded(
    id: string,
    encoded: ReadonlyMap<string, unknown>,
    extraSet: readonly string[] = [],
  ): SqlStatement {
    const params: unknown[] = [id];
    const sets = [...encoded].map(([column, value]) => {
      params.push(value);
      return `${column} = $${params.length}${JSON_COLUMNS.has(column as Column) ? '::jsonb' : ''}`;
    });
    return {
      sql: `UPDATE job SET ${[...sets, ...extraSet].join(', ')} WHERE id = $1 RETURNING id, canceled_by, canceled_reason`,
      params,
    };
  }

  /**
   * A large flow's changed module statuses (`indexes[i]` is `modules[i]`, JSON of an array), as
   * rows of `job_flow_module`; its `flow_status` then carries `MODULES_IN_ROWS` (job-columns.ts).
   */
  writeModuleRows(flowId: string, indexes: readonly number[], modulesJson: string): SqlStatement {
    return {
      sql: `INSERT INTO job_flow_module (job_id, idx, status)
            SELECT $1, ($2::int[])[e.n], e.status FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS e(status, n)
            ON CONFLICT (job_id, idx) DO UPDATE SET status = excluded.status`,
      params: [flowId, indexes, modulesJson],
      rowKeys: [`job_flow_module:${flowId}`],
    };
  }

  /** The job ends: its terminal fields, and the lease it held is released. */
  finish(id: string, fields: JobEnd): SqlStatement {
    return { ...this.ending(id, 'id = $1', fields), jobRow: id };
  }

  /**
   * Many jobs end cancelled at once, each as `finish` ends one (a tree's queued jobs and AI steps
   * when it is cancelled): one statement however many there are.
   */
  finishCancelled(ids: readonly string[], result: unknown): SqlStatement {
    return this.ending(ids, 'id = ANY($1::uuid[])', { status: 'cancelled', result });
  }

  private ending(id: string | readonly string[], where: string, fields: JobEnd): SqlStatement {
    const params: unknown[] = [
      id,
      fields.status,
      JSON.stringify(fields.result ?? null),
      fields.skipped ?? false,
      fields.startedAt ?? null,
    ];
    const sets = [
      // A job cancelled while it ran ends cancelled, whatever it returned.
      `status = CASE WHEN canceled_by IS NOT NULL THEN 'cancelled' ELSE $2 END`,
      'result = $3::jsonb',
      'skipped = $4',
      'completed_at = now()',
      'started_at = COALESCE(started_at, $5::timestamptz, now())',
      'duration_ms = GREATEST(0, floor(extract(epoch FROM (now() - COALESCE(started_at, $5::timestamptz, now()))) * 1000))::int',
      'lease_owner = NULL',
      'lease_until = NULL',
      'wake_at = NULL',
      `delete_after = CASE WHEN (runtime->>'deleteAfterSecs') IS NOT NULL
         THEN now() + (runtime->>'deleteAfterSecs')::int * interval '1 second' ELSE NULL END`,
    ];
    if (fields.flow_status !== undefined) {
      params.push(JSON.stringify(fields.flow_status));
      sets.push(`flow_status = $${params.length}::jsonb`);
    }
    if (fields.runtime !== undefined) {
      params.push(JSON.stringify(fields.runtime));
      sets.push(`runtime = $${params.length}::jsonb`);
    } else if (fields.appendAgentActions?.length) {
      params.push(
        JSON.stringify(fields.appendAgentActions.map(({ action }) => action)),
        JSON.stringify(fields.appendAgentActions.map(({ success }) => success)),
      );
      sets.push(`runtime = jsonb_set(
          jsonb_set(COALESCE(runtime, '{}'::jsonb), '{agentActions}', COALESCE(runtime->'agentActions', '[]'::jsonb) || $${params.length - 1}::jsonb),
          '{agentActionsSuccess}', COALESCE(runtime->'agentActionsSuccess', '[]'::jsonb) || $${params.length}::jsonb)`);
    }
    return {
      sql: `UPDATE job SET ${sets.join(', ')} WHERE ${where} AND status NOT IN ('completed','failed','cancelled')
            RETURNING id, status, duration_ms, completed_at`,
      params,
    };
  }

  /** `wake` for many jobs at once: one statement each for the counts and the messages. */
  wakeAll(jobIds: readonly string[], reason: string): SqlStatement[] {
    return [
      {
        sql: `UPDATE job SET wake_seq = wake_seq + 1 WHERE id = ANY($1::uuid[]) AND status NOT IN ('completed','failed','cancelled')`,
        params: [jobIds],
      },
      {
        sql: workMessagesSql(
          `job WHERE id = ANY($1::uuid[]) AND status NOT IN ('completed','failed','cancelled')
           ON CONFLICT (msg_id) DO NOTHING`,
          `'wake:' || id || ':' || $2 || ':' || gen_random_uuid()`,
        ),
        params: [jobIds, reason],
        relay: true,
      },
    ];
  }

  /**
   * Wakes a parked flow job: counts the wake-up (its driver, if it has one now, looks again) and
   * queues a message that drives it again. Two statements, so they combine with others.
   */
  wake(jobId: string, reason: string): SqlStatement[] {
    const msgId = `wake:${jobId}:${reason}:${randomUUID()}`;
    return [
      {
        sql: `UPDATE job SET wake_seq = wake_seq + 1 WHERE id = $1 AND status NOT IN ('completed','failed','cancelled')`,
        params: [jobId],
        jobRow: jobId,
      },
      {
        sql: workMessagesSql(
          `job WHERE id = $1 AND status NOT IN ('completed','failed','cancelled') ON CONFLICT (msg_id) DO NOTHING`,
          '$2',
        ),
        params: [jobId, msgId],
        relay: true,
        rowKeys: [`outbox_message:${msgId}`],
      },
    ];
  }

  /** A work message for a job on `tag` (`work.<tag>.job`, `work.<tag>.priority` for a priority above 0). */
  dispatch(
    job: { id: string; workspace: string; tag: string; priority?: number | null; kind?: string },
    msgId?: string,
  ): SqlStatement {
    return dispatchStatement(job, msgId);
  }

  event<P extends z.ZodType>(contract: EventContract<P>, payload: z.input<P>, msgId: string): SqlStatement {
    return eventStatement(contract, payload, msgId);
  }

  log(jobId: string, chunk: string): SqlStatement {
    return jobLogStatement(jobId, chunk);
  }

  // ---- reads --------------------------------------------------------------------------------

  async load(id: string): Promise<JobRecord | undefined> {
    const rows = await this.lanes.query<RawRow>(`SELECT ${SELECT_COLUMNS} FROM job WHERE id = $1`, [id]);
    return rows[0] ? decode(rows[0]) : undefined;
  }

  /** Who cancelled the job, if anyone did: a cheap look for a driver that holds its row in memory. */
  async cancelOf(id: string): Promise<{ by: string; reason: string | null } | undefined> {
    const rows = await this.lanes.query<{ canceled_by: string | null; canceled_reason: string | null }>(
      `SELECT canceled_by, canceled_reason FROM job WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    return row?.canceled_by ? { by: row.canceled_by, reason: row.canceled_reason } : undefined;
  }

  async loadMany(ids: readonly string[]): Promise<Map<string, JobRecord>> {
    if (ids.length === 0) return new Map();
    const rows = await this.lanes.query<RawRow>(
      `SELECT ${SELECT_COLUMNS} FROM job WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    return new Map(rows.map((row) => [row.id, decode(row)]));
  }

  /** Results of jobs, in the order of `ids` (undefined for a job that does not exist). */
  async results(ids: readonly string[]): Promise<Array<{ status: JobStatus; result: unknown } | undefined>> {
    if (ids.length === 0) return [];
    const rows = await this.lanes.query<{ id: string; status: JobStatus; result: unknown }>(
      `SELECT id, status, result FROM job WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id));
  }

  /** The latest ended job that ran step `stepId` anywhere in the tree of `rootJob` (not a loop's or branch's body). */
  async latestStepResult(rootJob: string, stepId: string): Promise<{ found: boolean; result: unknown }> {
    const rows = await this.lanes.query<{ result: unknown }>(
      `SELECT result FROM job WHERE root_job = $1 AND flow_step_id = $2
         AND kind <> 'flowpreview' AND status IN ('completed','failed')
       ORDER BY completed_at DESC LIMIT 1`,
      [rootJob, stepId],
    );
    return rows[0] ? { found: true, result: rows[0].result } : { found: false, result: undefined };
  }

  async wakeSeq(id: string): Promise<number | undefined> {
    const rows = await this.lanes.query<{ wake_seq: number }>(`SELECT wake_seq FROM job WHERE id = $1`, [id]);
    return rows[0]?.wake_seq;
  }

  /** A job's kind; undefined when there is no such job. */
  async kindOf(id: string): Promise<string | undefined> {
    const rows = await this.lanes.query<{ kind: string }>(`SELECT kind FROM job WHERE id = $1`, [id]);
    return rows[0]?.kind;
  }

  /** A job's arguments and kind. */
  async argsOf(id: string): Promise<{ args: Record<string, unknown>; kind: string } | undefined> {
    const rows = await this.lanes.query<{ args: Record<string, unknown>; kind: string }>(
      `SELECT args, kind FROM job WHERE id = $1`,
      [id],
    );
    return rows[0];
  }

  /** The `flow_env` of a flow job's document, and its workspace. */
  async flowEnvOf(
    id: string,
  ): Promise<{ flow_env: Record<string, unknown> | null; workspace: string } | undefined> {
    const rows = await this.lanes.query<{ flow_env: Record<string, unknown> | null; workspace: string }>(
      `SELECT raw_flow->'flow_env' AS flow_env, workspace FROM job WHERE id = $1`,
      [id],
    );
    return rows[0];
  }

  /** What a waiter for a job's result looks at. */
  async resultState(id: string): Promise<JobResultState | undefined> {
    const rows = await this.lanes.query<JobResultState>(
      `SELECT workspace, status, result, started_at IS NOT NULL AS started, runtime->'earlyResult' AS early FROM job WHERE id = $1`,
      [id],
    );
    return rows[0];
  }

  /** The first flow of a run (by its root) that waits suspended, a loop iteration or a branch included. */
  async firstSuspendedFlow(rootJob: string): Promise<string | undefined> {
    const rows = await this.lanes.query<{ id: string }>(
      `SELECT id FROM job WHERE root_job = $1 AND status = 'suspended' AND kind IN ('flow','flowpreview')
        ORDER BY created_at LIMIT 1`,
      [rootJob],
    );
    return rows[0]?.id;
  }

  /** Counts a wake-up of the job, whatever its status (its driver looks again before it parks). */
  async countWake(id: string): Promise<void> {
    await this.lanes.query(`UPDATE job SET wake_seq = wake_seq + 1 WHERE id = $1`, [id]);
  }

  /** A script job starts (or runs again after its worker died). */
  markRunning(id: string): SqlStatement {
    return {
      sql: `UPDATE job SET status = 'running', started_at = COALESCE(started_at, now()) WHERE id = $1 AND status IN ('queued', 'running')`,
      params: [id],
    };
  }

  /**
   * Marks a job and everything below it cancelled (the mark walks the tree by its `parent_job`
   * index): the rows marked, unended ones only.
   */
  markCancelled(id: string, by: string, reason: string | null): Promise<CancelMarked[]> {
    return this.lanes.queryManyRows<CancelMarked>(
      `WITH RECURSIVE tree AS (
         SELECT id FROM job WHERE id = $1
         UNION ALL SELECT j.id FROM job j JOIN tree t ON j.parent_job = t.id)
       UPDATE job SET canceled_by = $2, canceled_reason = $3
       WHERE id IN (SELECT id FROM tree) AND status NOT IN ('completed','failed','cancelled')
       RETURNING id, kind, status, parent_job, lease_owner,
                 (runtime->>'concurrencyKey') IS NOT NULL AS limited`,
      [id, by, reason],
    );
  }

  /**
   * Queues a work message for each job whose `wake_at` has come (up to 500 at once; `SKIP LOCKED`
   * shares them between processes); how many.
   */
  async wakeDue(): Promise<number> {
    const due = await this.lanes.query<unknown>(
      `WITH due AS (
         SELECT id FROM job WHERE wake_at <= now() AND status NOT IN ('completed','failed','cancelled')
         ORDER BY wake_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED),
       woken AS (
         UPDATE job j SET wake_at = NULL, wake_seq = j.wake_seq + 1 FROM due WHERE j.id = due.id
         RETURNING j.id, j.tag, j.priority, j.workspace)
       ${workMessagesSql('woken RETURNING 1', `'timer:' || id || ':' || gen_random_uuid()`)}`,
      [],
    );
    return due.length;
  }

  /** `delete_after_secs`: the args, result and logs of jobs whose time has come go. */
  async deleteExpired(): Promise<void> {
    await this.lanes.query(
      `WITH expired AS (
         UPDATE job SET args = '{}'::jsonb, result = NULL, delete_after = NULL
         WHERE id IN (SELECT id FROM job WHERE delete_after <= now() LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
         RETURNING id)
       DELETE FROM job_log WHERE job_id IN (SELECT id FROM expired)`,
      [],
    );
  }
}

/** A chunk of a job's log (`job_log`), appended. */
export function jobLogStatement(jobId: string, chunk: string): SqlStatement {
  return { sql: `INSERT INTO job_log (job_id, chunk) VALUES ($1, $2)`, params: [jobId, chunk] };
}

/** A job's end as far as its waiters see it (`resultState`). */
export interface JobResultState {
  workspace: string;
  status: JobResultReply['status'];
  result: unknown;
  started: boolean;
  /** The flow's `early_return` result, once known. */
  early: { value: unknown } | null;
}

/** A job `markCancelled` marked. */
export interface CancelMarked {
  id: string;
  kind: JobKind;
  status: JobStatus;
  parent_job: string | null;
  lease_owner: string | null;
  /** It holds a concurrency slot, which only its driver's finish releases. */
  limited: boolean;
}
