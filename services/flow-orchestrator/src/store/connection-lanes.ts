import { createHash } from 'node:crypto';
import { rowsOf } from '@flowmesh/persistence';
import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { combineStatements, type SqlStatement } from './sql-batch.js';

const DEADLOCK_DETECTED = '40P01';

/** A query within a transaction (`ConnectionLanes.transaction`): the stores' statements run on it. */
export type Query = <Row>(sql: string, params: readonly unknown[]) => Promise<Row[]>;

/**
 * How the stores reach Postgres: straight to the pool under TypeORM as named prepared statements,
 * a few connections held apart for groups of flows' writes (`queryApart`), transactions, and a
 * retry for statements that lock many rows. Only the stores (`store/`) use it.
 */
@Injectable()
export class ConnectionLanes implements BeforeApplicationShutdown {
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

  /** A statement through TypeORM, not prepared: one run rarely, whose plan is not worth keeping. */
  async unprepared<Row>(sql: string, params: readonly unknown[]): Promise<Row[]> {
    return rowsOf<Row>(await this.dataSource.query(sql, params as unknown[]));
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

  transaction<T>(work: (query: Query) => Promise<T>): Promise<T> {
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
