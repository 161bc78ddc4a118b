import type { JobStatus } from '@flowmesh/contracts';
import type { ConnectionLanes } from './connection-lanes.js';
import type { JobRecord } from './job.record.js';
import { JobStore, type NewJob } from './job.store.js';
import { LeaseStore } from './lease.store.js';
import { ResultCacheStore } from './result-cache.store.js';
import { ResumeStore, type ResumeRow } from './resume.store.js';
import type { SqlStatement } from './sql-batch.js';

/**
 * `JobStore` in memory, for unit specs of the engine: the statement builders are the real ones,
 * the rows a job insert writes are kept here (as `load` reads them back), and a batch executed
 * is recorded instead of sent. No Postgres, no Nest.
 */
export class MemoryJobStore extends JobStore {
  readonly rows = new Map<string, JobRecord>();
  /** Every batch `execute` was given, in order. */
  readonly executed: SqlStatement[][] = [];

  constructor() {
    super(undefined as unknown as ConnectionLanes);
  }

  /** A job row as it is now (a child that ended before a restart, say). */
  put(record: Partial<JobRecord> & { id: string; status: JobStatus }): JobRecord {
    const row = {
      args: {},
      runtime: {},
      result: null,
      wake_seq: 0,
      created_at: new Date(),
      ...record,
    } as JobRecord;
    this.rows.set(row.id, row);
    return row;
  }

  override insert(job: NewJob, options?: Parameters<JobStore['insert']>[1]): SqlStatement {
    if (!options?.onConflictDoNothing || !this.rows.has(job.id))
      this.rows.set(job.id, { ...job, wake_seq: 0, created_at: job.created_at ?? new Date() });
    return super.insert(job, options);
  }

  override execute<Row>(statements: readonly SqlStatement[]): Promise<Row[]> {
    this.executed.push([...statements]);
    return Promise.resolve([]);
  }

  override load(id: string): Promise<JobRecord | undefined> {
    return Promise.resolve(this.rows.get(id));
  }

  override cancelOf(id: string): Promise<{ by: string; reason: string | null } | undefined> {
    const row = this.rows.get(id);
    return Promise.resolve(
      row?.canceled_by ? { by: row.canceled_by, reason: row.canceled_reason } : undefined,
    );
  }

  override loadMany(ids: readonly string[]): Promise<Map<string, JobRecord>> {
    const found = ids.flatMap((id) => {
      const row = this.rows.get(id);
      return row ? [[id, row] as const] : [];
    });
    return Promise.resolve(new Map(found));
  }

  override countWake(id: string): Promise<void> {
    const row = this.rows.get(id);
    if (row) row.wake_seq += 1;
    return Promise.resolve();
  }

  override kindOf(id: string): Promise<string | undefined> {
    return Promise.resolve(this.rows.get(id)?.kind);
  }

  override argsOf(id: string): Promise<{ args: Record<string, unknown>; kind: string } | undefined> {
    const row = this.rows.get(id);
    return Promise.resolve(row && { args: row.args, kind: row.kind });
  }

  override flowEnvOf(
    id: string,
  ): Promise<{ flow_env: Record<string, unknown> | null; workspace: string } | undefined> {
    const row = this.rows.get(id);
    const env = (row?.raw_flow as { flow_env?: Record<string, unknown> } | null)?.flow_env ?? null;
    return Promise.resolve(row && { flow_env: env, workspace: row.workspace });
  }

  override latestStepResult(rootJob: string, stepId: string): Promise<{ found: boolean; result: unknown }> {
    const ended = [...this.rows.values()].filter(
      (row) =>
        row.root_job === rootJob &&
        row.flow_step_id === stepId &&
        row.kind !== 'flowpreview' &&
        (row.status === 'completed' || row.status === 'failed'),
    );
    const latest = ended.at(-1);
    return Promise.resolve(
      latest ? { found: true, result: latest.result } : { found: false, result: undefined },
    );
  }

  override results(
    ids: readonly string[],
  ): Promise<Array<{ status: JobStatus; result: unknown } | undefined>> {
    return Promise.resolve(
      ids.map((id) => {
        const row = this.rows.get(id);
        return row ? { status: row.status, result: row.result } : undefined;
      }),
    );
  }
}

/** `ResultCacheStore` in memory: what `save` keeps (a statement, as the real one), `lookup` finds. */
export class MemoryResultCacheStore extends ResultCacheStore {
  readonly results = new Map<string, unknown>();

  constructor() {
    super(undefined as unknown as ConnectionLanes);
  }

  override lookup(key: string): Promise<{ hit: true; result: unknown } | { hit: false }> {
    return Promise.resolve(
      this.results.has(key) ? { hit: true, result: this.results.get(key) } : { hit: false },
    );
  }

  override save(key: string, result: unknown, ttlSeconds: number): SqlStatement {
    this.results.set(key, result);
    return super.save(key, result, ttlSeconds);
  }
}

/** `LeaseStore` over a `MemoryJobStore`'s rows: who holds each job, taken and given back. */
export class MemoryLeaseStore extends LeaseStore {
  readonly owners = new Map<string, string>();

  constructor(private readonly memory: MemoryJobStore) {
    super(undefined as unknown as ConnectionLanes, memory, undefined as never);
  }

  override acquire(
    id: string,
    owner: string,
    _ttlMs: number,
    options: { flowsOnly?: boolean } = {},
  ): Promise<JobRecord | undefined> {
    const row = this.memory.rows.get(id);
    const holder = this.owners.get(id);
    const flow = row?.kind === 'flow' || row?.kind === 'flowpreview';
    if (!row || (holder !== undefined && holder !== owner) || (options.flowsOnly && !flow))
      return Promise.resolve(undefined);
    this.owners.set(id, owner);
    return Promise.resolve(structuredClone(row));
  }

  override release(id: string, owner: string, seenWakeSeq: number): Promise<boolean> {
    const released = this.owners.get(id) === owner && this.memory.rows.get(id)?.wake_seq === seenWakeSeq;
    if (released) this.owners.delete(id);
    return Promise.resolve(released);
  }
}

/** `ResumeStore` in memory: the answers given to each suspended step. */
export class MemoryResumeStore extends ResumeStore {
  readonly answers = new Map<string, ResumeRow[]>();

  constructor() {
    super(undefined as unknown as ConnectionLanes);
  }

  override list(suspendedJob: string): Promise<ResumeRow[]> {
    return Promise.resolve(this.answers.get(suspendedJob) ?? []);
  }
}
