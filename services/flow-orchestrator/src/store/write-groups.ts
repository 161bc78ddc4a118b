import { Injectable } from '@nestjs/common';
import { ConnectionLanes } from './connection-lanes.js';
import { combineStatements, type SqlStatement } from './sql-batch.js';

/**
 * A write of one job's state: `statements` commit together, the last one returning the job's row
 * (`id` first among its columns). `rows` names every job row the write touches; without it the
 * write may touch rows of others (a wake-up, a cancel that reaches children) and commits alone.
 */
export interface GroupedWrite {
  readonly id: string;
  readonly statements: readonly SqlStatement[];
  readonly rows: ReadonlySet<string> | undefined;
}

/**
 * Planning a statement of many CTEs grows faster than their number (16 writes: ~20 ms, once per
 * connection; 32: ~65 ms), and groups of 16 already share most of what there is to share.
 */
const MAX_WRITES_PER_GROUP = 16;
/** Well under Postgres' 65 535 parameters of a statement. */
const MAX_PARAMS_PER_GROUP = 20_000;
/** How far down the queue a group looks for writes of its shape. */
const MAX_SCANNED = 256;

interface Pending {
  readonly write: GroupedWrite;
  readonly params: number;
  /** Its statements' text: writes of one shape share a statement text, kept prepared. */
  readonly shape: string;
  resolve(rows: Array<Record<string, unknown>>): void;
  reject(error: unknown): void;
}

/**
 * Group commit for the writes of many jobs (under load a worker drives a hundred flows, each
 * committing its steps): writes that arrive while earlier ones are in flight commit together, as
 * one statement, so a commit, a round trip and a socket write are shared by many steps. Each
 * write still lands exactly once, all-or-nothing and in its job's order: writes in one group
 * touch disjoint rows (Postgres applies the writes of one statement in no set order), a write
 * touching a row of a group in flight waits for that group, and a write that may touch anyone's
 * rows waits for every group and commits alone. When a group fails, each of its writes is tried
 * alone, so one bad write fails no other.
 */
@Injectable()
export class WriteGroups {
  private readonly queue: Pending[] = [];
  private readonly busyRows = new Map<string, number>();
  private inFlight = 0;
  private exclusive = false;
  /** Connections (held apart from the pool) of the groups in flight. */
  private readonly lanes = new Set<number>();

  constructor(private readonly connections: ConnectionLanes) {}

  /** Commits the write (with others, when they wait together); the rows its last statement returned. */
  write<Row>(write: GroupedWrite): Promise<Row[]> {
    return new Promise<Array<Record<string, unknown>>>((resolve, reject) => {
      const params = write.statements.reduce((sum, statement) => sum + statement.params.length, 0);
      const shape = write.statements
        .map((statement) => `${statement.params.length}:${statement.sql}`)
        .join('\u0000');
      this.queue.push({ write, params, shape, resolve, reject });
      this.pump();
    }) as Promise<Row[]>;
  }

  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < this.connections.apartLanes && !this.exclusive) {
      const head = this.queue[0];
      if (!head.write.rows) {
        if (this.inFlight > 0) return;
        this.queue.shift();
        this.exclusive = true;
        this.launch([head]);
        return;
      }
      const group = this.gather();
      if (group.length === 0) return;
      this.launch(group);
    }
  }

  /**
   * Waiting writes of one shape (the same statements), in order, touching rows that no write of
   * the group, in flight or passed over touches: a write passed over keeps its rows from being
   * written before it. Stops at a write that may touch anyone's rows.
   */
  private gather(): Pending[] {
    const group: Pending[] = [];
    const rows = new Set<string>();
    const passedOver = new Set<string>();
    let shape: string | undefined;
    let params = 0;
    const scan = Math.min(this.queue.length, MAX_SCANNED);
    for (let i = 0; i < scan && group.length < MAX_WRITES_PER_GROUP; i++) {
      const next = this.queue[i];
      const own = next.write.rows;
      if (!own) break;
      const free =
        (shape === undefined || next.shape === shape) &&
        params + next.params <= MAX_PARAMS_PER_GROUP &&
        ![...own].some((row) => rows.has(row) || passedOver.has(row) || this.busyRows.has(row));
      if (!free) {
        for (const row of own) passedOver.add(row);
        continue;
      }
      shape = next.shape;
      for (const row of own) rows.add(row);
      params += next.params;
      group.push(next);
    }
    // A power of two: with few sizes of each shape, Postgres plans each statement text once per
    // connection and then reuses it (planning a statement of many CTEs costs more than running it).
    // The writes left out go with the next group.
    group.length = group.length === 0 ? 0 : 2 ** Math.floor(Math.log2(group.length));
    if (group.length > 0) {
      const taken = new Set(group);
      this.queue.splice(0, scan, ...this.queue.slice(0, scan).filter((pending) => !taken.has(pending)));
    }
    return group;
  }

  private launch(group: Pending[]): void {
    this.inFlight++;
    const lane = [...Array(this.connections.apartLanes).keys()].find((index) => !this.lanes.has(index))!;
    this.lanes.add(lane);
    const rows = group.flatMap((pending) => [...(pending.write.rows ?? [])]);
    for (const row of rows) this.busyRows.set(row, (this.busyRows.get(row) ?? 0) + 1);
    void this.commit(group, lane).finally(() => {
      this.lanes.delete(lane);
      for (const row of rows) {
        const left = this.busyRows.get(row)! - 1;
        if (left === 0) this.busyRows.delete(row);
        else this.busyRows.set(row, left);
      }
      this.inFlight--;
      this.exclusive = false;
      this.pump();
    });
  }

  private async commit(group: Pending[], lane: number): Promise<void> {
    if (group.length === 1) return this.commitAlone(group[0]);
    let rows: Array<Record<string, unknown>>;
    try {
      rows = await this.connections.queryApart(lane, groupText(group), paramsOf(group));
    } catch {
      for (const pending of group) await this.commitAlone(pending);
      return;
    }
    const byId = new Map<unknown, Array<Record<string, unknown>>>();
    for (const row of rows) byId.set(row.id, [...(byId.get(row.id) ?? []), row]);
    for (const pending of group) pending.resolve(byId.get(pending.write.id) ?? []);
  }

  private async commitAlone(pending: Pending): Promise<void> {
    try {
      pending.resolve(await this.connections.query(groupText([pending]), paramsOf([pending])));
    } catch (error) {
      pending.reject(error);
    }
  }
}

function paramsOf(group: readonly Pending[]): unknown[] {
  return group.flatMap((pending) => pending.write.statements.flatMap((statement) => statement.params));
}

/** Group statements by shape and size: the same few come back all the time. */
const groupTexts = new Map<string, string>();

/**
 * The writes (of one shape) as one statement: every statement a CTE, and the rows of each
 * write's last one. Built once per shape and size (a write alone too), so Postgres keeps it
 * prepared.
 */
function groupText(group: readonly Pending[]): string {
  const key = `${group.length}\u0001${group[0].shape}`;
  let sql = groupTexts.get(key);
  if (sql === undefined) {
    const statements = group.flatMap((pending) => pending.write.statements);
    const lasts: string[] = [];
    let index = -1;
    for (const pending of group) {
      index += pending.write.statements.length;
      lasts.push(`SELECT * FROM s${index}`);
    }
    sql = combineStatements(statements, lasts.join(' UNION ALL '), false).sql;
    if (groupTexts.size >= 1_000) groupTexts.clear();
    groupTexts.set(key, sql);
  }
  return sql;
}
