import type { JobStatus } from '@flowmesh/contracts';
import type { ConnectionLanes } from './connection-lanes.js';
import type { JobRecord } from './job.record.js';
import { JobStore, type NewJob } from './job.store.js';
import { ResultCacheStore } from './result-cache.store.js';
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

  override loadMany(ids: readonly string[]): Promise<Map<string, JobRecord>> {
    const found = ids.flatMap((id) => {
      const row = this.rows.get(id);
      return row ? [[id, row] as const] : [];
    });
    return Promise.resolve(new Map(found));
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
