import { Injectable } from '@nestjs/common';
import { JobRepository } from './job.repository.js';
import type { SqlStatement } from './sql-batch.js';

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

/** Groups in flight at once: one commits while the next one gathers. */
const GROUPS_IN_FLIGHT = 2;
const MAX_WRITES_PER_GROUP = 64;
/** Well under Postgres' 65 535 parameters of a statement. */
const MAX_PARAMS_PER_GROUP = 20_000;

interface Pending {
  readonly write: GroupedWrite;
  readonly params: number;
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

  constructor(private readonly jobs: JobRepository) {}

  /** Commits the write (with others, when they wait together); the rows its last statement returned. */
  write<Row>(write: GroupedWrite): Promise<Row[]> {
    return new Promise<Array<Record<string, unknown>>>((resolve, reject) => {
      const params = write.statements.reduce((sum, statement) => sum + statement.params.length, 0);
      this.queue.push({ write, params, resolve, reject });
      this.pump();
    }) as Promise<Row[]>;
  }

  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < GROUPS_IN_FLIGHT && !this.exclusive) {
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

  /** Writes from the head of the queue, in order, while they touch rows no other write of theirs or in flight touches. */
  private gather(): Pending[] {
    const group: Pending[] = [];
    const rows = new Set<string>();
    let params = 0;
    while (this.queue.length > 0 && group.length < MAX_WRITES_PER_GROUP) {
      const next = this.queue[0];
      const own = next.write.rows;
      if (!own || params + next.params > MAX_PARAMS_PER_GROUP) break;
      if ([...own].some((row) => rows.has(row) || this.busyRows.has(row))) break;
      for (const row of own) rows.add(row);
      params += next.params;
      group.push(this.queue.shift()!);
    }
    return group;
  }

  private launch(group: Pending[]): void {
    this.inFlight++;
    const rows = group.flatMap((pending) => [...(pending.write.rows ?? [])]);
    for (const row of rows) this.busyRows.set(row, (this.busyRows.get(row) ?? 0) + 1);
    void this.commit(group).finally(() => {
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

  private async commit(group: Pending[]): Promise<void> {
    if (group.length === 1) return this.commitAlone(group[0]);
    let rows: Array<Record<string, unknown>>;
    try {
      rows = await this.jobs.execute(...groupStatement(group.map((pending) => pending.write)));
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
      pending.resolve(await this.jobs.execute(pending.write.statements));
    } catch (error) {
      pending.reject(error);
    }
  }
}

/**
 * The writes as one statement: every statement a CTE, and the rows of each write's last one. The
 * text changes with the group's make-up, so it is not kept as a prepared statement.
 */
function groupStatement(writes: readonly GroupedWrite[]): Parameters<JobRepository['execute']> {
  const statements = writes.flatMap((write) => write.statements);
  const lasts: string[] = [];
  let index = -1;
  for (const write of writes) {
    index += write.statements.length;
    lasts.push(`SELECT * FROM s${index}`);
  }
  return [statements, lasts.join(' UNION ALL '), { prepare: false }];
}
