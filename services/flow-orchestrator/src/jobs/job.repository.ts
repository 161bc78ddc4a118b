import { createHash, randomUUID } from 'node:crypto';
import {
  runJobWork,
  runJobWorkFor,
  runPriorityJobWork,
  validationError,
  workSubject,
  type EventContract,
  type JobStatus,
} from '@flowmesh/contracts';
import { rowsOf } from '@flowmesh/persistence';
import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { z } from 'zod';
import type { JobRecord, JobRuntime } from './job.record.js';
import { combineStatements, type SqlStatement } from './sql-batch.js';

const COLUMNS = [
  'id',
  'workspace',
  'kind',
  'parent_job',
  'root_job',
  'path',
  'script_hash',
  'flow_step_id',
  'language',
  'raw_code',
  'raw_lock',
  'raw_flow',
  'args',
  'status',
  'result',
  'flow_status',
  'runtime',
  'created_by',
  'on_behalf_of',
  'email',
  'tag',
  'priority',
  'skipped',
  'canceled_by',
  'canceled_reason',
  'created_at',
  'scheduled_for',
  'started_at',
  'completed_at',
  'duration_ms',
  'wake_at',
] as const;
type Column = (typeof COLUMNS)[number];

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
const DEADLOCK_DETECTED = '40P01';
const JSON_COLUMNS = new Set<Column>(['raw_flow', 'args', 'result', 'flow_status', 'runtime']);
const SELECT_COLUMNS = [...COLUMNS, 'wake_seq'].join(', ');

/**
 * A job row's work subject, in SQL (`runJobWorkFor`): `work.<tag>.job`, or the priority lane
 * for a priority above 0. Statements using it select the row's `tag` and `priority`.
 */
/** Jobs a worker does not run as a script: flows (driven) and AI steps (agent-runtime's). */
const NOT_SCRIPT_KINDS: ReadonlySet<string> = new Set(['flow', 'flowpreview', 'aiagent', 'aidecision']);

export const WORK_SUBJECT_SQL = `'work.' || tag || CASE WHEN priority > 0 THEN '.${runPriorityJobWork.workKind}' ELSE '.${runJobWork.workKind}' END`;

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
 * The job tables, in SQL: the engine's hot path writes a step's result, its flow's status and
 * the messages they cause as one statement (`combineStatements`), so every builder here returns
 * a statement and `execute` runs a batch of them.
 */
@Injectable()
export class JobRepository implements BeforeApplicationShutdown {
  constructor(private readonly dataSource: DataSource) {}

  async execute<Row = Record<string, unknown>>(
    statements: readonly SqlStatement[],
    finalSql?: string,
  ): Promise<Row[]> {
    if (statements.length === 0) return [];
    const { sql, params } = combineStatements(statements, finalSql);
    return this.rows<Row>(sql, params);
  }

  query<Row>(sql: string, params: readonly unknown[]): Promise<Row[]> {
    return this.rows<Row>(sql, params);
  }

  /**
   * `query` for a statement that locks many job rows (a whole tree, every lease of a process):
   * a group of flows' writes locks its rows in no set order, so the two may deadlock; Postgres
   * then ends one of them, and when it is this statement, it is tried again (up to 3 times).
   */
  async queryManyRows<Row>(sql: string, params: readonly unknown[]): Promise<Row[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.rows<Row>(sql, params);
      } catch (error) {
        if (attempt >= 3 || (error as { code?: unknown }).code !== DEADLOCK_DETECTED) throw error;
      }
    }
  }

  transaction<T>(
    work: (query: <Row>(sql: string, params: readonly unknown[]) => Promise<Row[]>) => Promise<T>,
  ) {
    return this.dataSource.transaction((manager) =>
      work(async <Row>(sql: string, params: readonly unknown[]) =>
        rowsOf<Row>(await manager.query(sql, params as unknown[])),
      ),
    );
  }

  /**
   * `query` on connection `lane` of a few held apart from the pool, for statements whose plans
   * are big and many (groups of flows' writes): Postgres keeps a plan on each connection that
   * ran it, so such plans stay on those few connections instead of filling every one of the pool.
   * Once the process stops, the pool serves them.
   */
  async queryApart<Row>(lane: number, sql: string, params: readonly unknown[]): Promise<Row[]> {
    const pool = this.pool;
    if (!pool || this.apartClosed) return this.rows<Row>(sql, params);
    let held = this.apart.get(lane);
    if (!held) {
      held = this.holdApart(pool, lane);
      this.apart.set(lane, held);
    }
    this.apartBusy++;
    try {
      const connection = await held;
      try {
        return (await connection.client.query<Row>(prepared(sql, params))).rows;
      } catch (error) {
        // A statement's own error leaves the connection usable; anything else ends it.
        const code = (error as { code?: unknown }).code;
        if (typeof code !== 'string' || /^(08|57)/.test(code))
          connection.end(error instanceof Error ? error : new Error(String(error)));
        throw error;
      }
    } finally {
      this.apartBusy--;
    }
  }

  /**
   * Stopping: the connections held apart go back to the pool once their statements are done
   * (up to 5 s), before the pool closes (it waits for every connection given out).
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.apartClosed = true;
    for (let waited = 0; this.apartBusy > 0 && waited < 5_000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const held = [...this.apart.values()];
    this.apart.clear();
    for (const connection of await Promise.allSettled(held))
      if (connection.status === 'fulfilled') connection.value.end();
  }

  /**
   * Lanes for `queryApart`, and so groups of writes in flight at once: a fifth of the pool, from
   * one to four. Under load a step's commit otherwise waited its turn behind two groups (p90 54
   * ms, up to 443 ms on a busy machine, against 8 and 126 with four).
   */
  get apartLanes(): number {
    return Math.min(4, Math.max(1, Math.floor((this.pool?.options.max ?? 10) / 5)));
  }

  /**
   * A connection taken out of the pool for `lane`. The pool watches only the connections it
   * holds, so this one listens for its own end (Postgres restarting or killing the session):
   * unheard, that `error` event would crash the process. Ended, it leaves the lane and the pool.
   */
  private holdApart(pool: PgPool, lane: number): Promise<ApartConnection> {
    const held: Promise<ApartConnection> = pool.connect().then((client) => {
      let ended = false;
      const end = (error?: Error): void => {
        if (ended) return;
        ended = true;
        if (this.apart.get(lane) === held) this.apart.delete(lane);
        client.release(error);
      };
      client.on('error', end);
      return { client, end };
    });
    held.catch(() => {
      if (this.apart.get(lane) === held) this.apart.delete(lane);
    });
    return held;
  }

  private readonly apart = new Map<number, Promise<ApartConnection>>();
  private apartBusy = 0;
  private apartClosed = false;

  private get pool(): PgPool | undefined {
    return (this.dataSource.driver as unknown as { master?: PgPool }).master;
  }

  /**
   * Rows of a query, sent straight to the connection pool under TypeORM (the hot path pays no
   * query-runner per call) as a named prepared statement, so Postgres plans each distinct
   * statement once per connection.
   */
  private async rows<Row>(sql: string, params: readonly unknown[]): Promise<Row[]> {
    const pool = this.pool;
    if (!pool) return rowsOf<Row>(await this.dataSource.query(sql, params as unknown[]));
    const result = await pool.query<Row>(prepared(sql, params));
    return result.rows;
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
        sql: `INSERT INTO outbox_message (id, subject, payload, headers, msg_id)
              SELECT gen_random_uuid(), ${WORK_SUBJECT_SQL},
                     jsonb_build_object('jobId', id, 'workspace', workspace), '{}'::jsonb,
                     'wake:' || id || ':' || $2 || ':' || gen_random_uuid()
              FROM job WHERE id = ANY($1::uuid[]) AND status NOT IN ('completed','failed','cancelled')
              ON CONFLICT (msg_id) DO NOTHING`,
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
        sql: `INSERT INTO outbox_message (id, subject, payload, headers, msg_id)
              SELECT gen_random_uuid(), ${WORK_SUBJECT_SQL},
                     jsonb_build_object('jobId', id, 'workspace', workspace), '{}'::jsonb, $2
              FROM job WHERE id = $1 AND status NOT IN ('completed','failed','cancelled')
              ON CONFLICT (msg_id) DO NOTHING`,
        params: [jobId, msgId],
        relay: true,
        rowKeys: [`outbox_message:${msgId}`],
      },
    ];
  }

  /** A work message for a job on `tag` (`work.<tag>.job`, `work.<tag>.priority` for a priority above 0). */
  dispatch(
    job: { id: string; workspace: string; tag: string; priority?: number | null; kind?: string },
    msgId = `run:${job.id}`,
  ): SqlStatement {
    const work = runJobWorkFor(job.priority);
    const script = job.kind !== undefined && !NOT_SCRIPT_KINDS.has(job.kind);
    return this.outbox(
      workSubject(job.tag, work.workKind),
      work.payload.parse({ jobId: job.id, workspace: job.workspace, ...(script ? { script } : {}) }),
      msgId,
    );
  }

  event<P extends z.ZodType>(contract: EventContract<P>, payload: z.input<P>, msgId: string): SqlStatement {
    const checked = contract.payload.safeParse(payload);
    if (!checked.success) throw validationError(`event ${contract.subject}`, checked.error);
    return this.outbox(contract.subject, checked.data, msgId);
  }

  private outbox(subject: string, payload: unknown, msgId: string): SqlStatement {
    return {
      sql: `INSERT INTO outbox_message (id, subject, payload, headers, msg_id)
            VALUES ($1, $2, $3::jsonb, '{}'::jsonb, $4) ON CONFLICT (msg_id) DO NOTHING`,
      params: [randomUUID(), subject, JSON.stringify(payload), msgId],
      message: { subject, payload, msgId },
    };
  }

  log(jobId: string, chunk: string): SqlStatement {
    return { sql: `INSERT INTO job_log (job_id, chunk) VALUES ($1, $2)`, params: [jobId, chunk] };
  }

  // ---- reads --------------------------------------------------------------------------------

  async load(id: string): Promise<JobRecord | undefined> {
    const rows = await this.rows<RawRow>(`SELECT ${SELECT_COLUMNS} FROM job WHERE id = $1`, [id]);
    return rows[0] ? decode(rows[0]) : undefined;
  }

  async loadMany(ids: readonly string[]): Promise<Map<string, JobRecord>> {
    if (ids.length === 0) return new Map();
    const rows = await this.rows<RawRow>(`SELECT ${SELECT_COLUMNS} FROM job WHERE id = ANY($1::uuid[])`, [
      ids,
    ]);
    return new Map(rows.map((row) => [row.id, decode(row)]));
  }

  /** Results of jobs, in the order of `ids` (undefined for a job that does not exist). */
  async results(ids: readonly string[]): Promise<Array<{ status: JobStatus; result: unknown } | undefined>> {
    if (ids.length === 0) return [];
    const rows = await this.rows<{ id: string; status: JobStatus; result: unknown }>(
      `SELECT id, status, result FROM job WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id));
  }

  /** The latest ended job that ran step `stepId` anywhere in the tree of `rootJob` (not a loop's or branch's body). */
  async latestStepResult(rootJob: string, stepId: string): Promise<{ found: boolean; result: unknown }> {
    const rows = await this.rows<{ result: unknown }>(
      `SELECT result FROM job WHERE root_job = $1 AND flow_step_id = $2
         AND kind <> 'flowpreview' AND status IN ('completed','failed')
       ORDER BY completed_at DESC LIMIT 1`,
      [rootJob, stepId],
    );
    return rows[0] ? { found: true, result: rows[0].result } : { found: false, result: undefined };
  }

  /** Takes the job for `owner` unless another live process drives it; the row as of now. */
  async acquireLease(
    id: string,
    owner: string,
    ttlMs: number,
    options: { flowsOnly?: boolean; scriptIn?: string } = {},
  ): Promise<JobRecord | undefined> {
    const rows = await this.rows<RawRow & { token_job: string; job_token: string | null }>(
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
    if (row.job_token) this.leasedTokens.remember(row.token_job, row.job_token);
    const { token_job: _tokenJob, job_token: _token, ...record } = row;
    return decode(record);
  }

  /** Job tokens read with a lease, for `JobTokens` (which asks here before it queries). */
  readonly leasedTokens = new LeasedTokens();

  /** Gives the job back; false when it was woken since `seenWakeSeq` (the caller drives it again). */
  async releaseLease(id: string, owner: string, seenWakeSeq: number): Promise<boolean> {
    const rows = await this.rows<unknown>(
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
      ...this.wake(id, 'handed-back'),
    ];
  }

  /**
   * Extends the leases `owner` holds. A row locked at that moment (a group of flows' writes
   * commits it) is passed over until the next renewal, a third of a lease later: waiting for it
   * while holding the others could deadlock with such a group, which locks its rows in no set order.
   */
  async renewLeases(owner: string, ttlMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE job SET lease_until = now() + $2 * interval '1 millisecond'
       WHERE id IN (SELECT id FROM job WHERE lease_owner = $1 FOR UPDATE SKIP LOCKED) AND lease_owner = $1`,
      [owner, ttlMs],
    );
  }

  /** A process stopping hands its flow jobs back: released, and each queued to be driven elsewhere. */
  async releaseAll(owner: string): Promise<number> {
    const rows = await this.queryManyRows<unknown>(
      `WITH freed AS (
         UPDATE job SET lease_owner = NULL, lease_until = NULL, wake_seq = wake_seq + 1
         WHERE lease_owner = $1 AND status NOT IN ('completed','failed','cancelled')
         RETURNING id, tag, priority, workspace)
       INSERT INTO outbox_message (id, subject, payload, headers, msg_id)
       SELECT gen_random_uuid(), ${WORK_SUBJECT_SQL}, jsonb_build_object('jobId', id, 'workspace', workspace),
              '{}'::jsonb, 'released:' || id || ':' || gen_random_uuid()
       FROM freed RETURNING 1`,
      [owner],
    );
    return rows.length;
  }

  async wakeSeq(id: string): Promise<number | undefined> {
    const rows = await this.rows<{ wake_seq: number }>(`SELECT wake_seq FROM job WHERE id = $1`, [id]);
    return rows[0]?.wake_seq;
  }
}

interface PreparedQuery {
  name: string;
  text: string;
  values: unknown[];
}

interface PgClient {
  query<Row>(config: PreparedQuery): Promise<{ rows: Row[] }>;
  /** With an error: the connection is closed rather than given back. */
  release(error?: Error): void;
  on(event: 'error', listener: (error: Error) => void): void;
}

interface ApartConnection {
  readonly client: PgClient;
  /** Gives the connection back to the pool, or with an error closes it; once. */
  end(error?: Error): void;
}

interface PgPool {
  readonly options: { readonly max?: number };
  query<Row>(config: PreparedQuery): Promise<{ rows: Row[] }>;
  connect(): Promise<PgClient>;
}

function prepared(sql: string, params: readonly unknown[]): PreparedQuery {
  return { name: statementName(sql), text: sql, values: params as unknown[] };
}

const names = new Map<string, string>();

/** A prepared statement's name: a digest of its text (Postgres keeps 63 characters of a name). */
function statementName(sql: string): string {
  let name = names.get(sql);
  if (!name) {
    name = `fm_${createHash('sha1').update(sql).digest('base64url').slice(0, 24)}`;
    if (names.size > 5_000) names.clear();
    names.set(sql, name);
  }
  return name;
}

interface RawRow extends Record<string, unknown> {
  id: string;
}

function encode(column: Column, value: unknown): unknown {
  if (value === undefined)
    return JSON_COLUMNS.has(column) ? (column === 'args' || column === 'runtime' ? '{}' : null) : null;
  if (JSON_COLUMNS.has(column)) return value === null ? null : JSON.stringify(value);
  return value;
}

function decode(row: RawRow): JobRecord {
  return {
    ...(row as unknown as JobRecord),
    args: (row.args as Record<string, unknown> | null) ?? {},
    runtime: (row.runtime as JobRuntime | null) ?? {},
    priority: row.priority === null || row.priority === undefined ? null : Number(row.priority),
  };
}

/** Tokens that came with leased rows, taken once by `JobTokens`; bounded. */
export class LeasedTokens {
  private readonly tokens = new Map<string, string>();

  remember(jobId: string, token: string): void {
    if (this.tokens.size >= 1_000) this.tokens.clear();
    this.tokens.set(jobId, token);
  }

  take(jobId: string): string | undefined {
    const token = this.tokens.get(jobId);
    this.tokens.delete(jobId);
    return token;
  }
}
