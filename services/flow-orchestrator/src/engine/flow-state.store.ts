import { Injectable } from '@nestjs/common';
import { JobStore, type JobUpdate } from '../store/job.store.js';
import { rowsTouched, touchesOwnRows, type SqlStatement } from '../store/sql-batch.js';
import { WriteGroups } from '../store/write-groups.js';
import { EngineOutbox } from './engine-outbox.js';
import type { FlowRun } from './flow-run.js';
import { StatusSnapshot, type WrittenModules } from './flow-status.snapshot.js';

/**
 * Writes a flow's state (status, runtime, and whatever else changes with it) in one statement
 * with the writes that go with it, in the flow's write order, and learns of a cancel request on
 * the way back.
 */
@Injectable()
export class FlowStateStore {
  constructor(
    private readonly jobs: JobStore,
    private readonly groups: WriteGroups,
    private readonly outbox: EngineOutbox,
  ) {}

  /** Holds writes back until the flow's next commit (one round trip less). */
  defer(run: FlowRun, statements: readonly SqlStatement[], fields: JobUpdate): void {
    run.pending.statements.push(...statements);
    Object.assign(run.pending.fields, fields);
  }

  async save(
    run: FlowRun,
    ownStatements: readonly SqlStatement[] = [],
    ownFields: JobUpdate = {},
  ): Promise<void> {
    if (run.ephemeral) return;
    const { statements, fields } = this.takePending(run, ownStatements, ownFields);
    // The state is taken now, with the writes that go with it: a write queued behind others
    // must not carry state whose own writes are still queued after it. The status is encoded
    // when it is written (`StatusSnapshot`): of several writes landing as one, only the last's.
    const encoded = this.jobs.encodeUpdate({ runtime: run.runtime, ...fields });
    if (!encoded.has('flow_status')) encoded.set('flow_status', new StatusSnapshot(run.status));
    const write: QueuedWrite = { statements, fields: encoded };
    const queue = queued(run);
    queue.push(write);
    const rows = await run.serialize(() => write.landed ?? this.land(run, queue));
    const row = rows[0];
    if (row?.canceled_by && !run.cancelRequest)
      run.cancelRequest = { by: row.canceled_by, reason: row.canceled_reason };
  }

  /**
   * Lands the oldest queued write of the flow, with the writes queued after it as long as they
   * touch rows of their own (under load a flow's steps outrun its commits: several steps then
   * commit as one statement, each step's result still written once, in order). The statement
   * commits with other flows' writes of the moment (`WriteGroups`). Should the combined statement
   * fail, each write is tried alone, in order, as it would have been.
   */
  private async land(run: FlowRun, queue: QueuedWrite[]): Promise<CancelRow[]> {
    const batch = takeBatch(queue, run.id);
    const combined = (writes: readonly QueuedWrite[]): Promise<CancelRow[]> => {
      const fields = new Map<string, unknown>();
      for (const write of writes) for (const [column, value] of write.fields) fields.set(column, value);
      const statements = writes.flatMap((write) => write.statements);
      const status = fields.get('flow_status');
      let written: WrittenModules | undefined;
      if (status instanceof StatusSnapshot && status.size >= MODULES_IN_ROWS_FROM) {
        // A large flow writes the modules that changed, not its whole status (issue 34).
        const split = status.encodeSplit(writtenModules.get(run));
        fields.set('flow_status', split.status);
        if (split.indexes.length > 0)
          statements.push(this.jobs.writeModuleRows(run.id, split.indexes, split.modulesJson));
        written = split.written;
      } else if (status instanceof StatusSnapshot) {
        fields.set('flow_status', status.encode());
      }
      const landed = this.groups.write<CancelRow>({
        id: run.id,
        statements: [...statements, this.jobs.updateEncoded(run.id, fields)],
        rows: rowsTouched(statements, run.id),
      });
      for (const write of writes) write.landed = landed;
      return landed.then((rows) => {
        if (written) writtenModules.set(run, written);
        this.outbox.afterCommit(statements);
        return rows;
      });
    };
    if (batch.length === 1) return combined(batch);
    try {
      return await combined(batch);
    } catch {
      let rows: CancelRow[] = [];
      for (const write of batch) rows = await combined([write]);
      return rows;
    }
  }

  /**
   * The same write, not waited for: the flow goes on to its next steps while this one commits
   * (writes land in order; a failed one stops the run before it commits anything else). A step
   * started meanwhile is in flight as far as a crash is concerned: it runs again, as does a step
   * whose commit was lost. How far a flow may run ahead of its commits is bounded in time, not in
   * steps: once its oldest write still landing is `LEAD_MS` old (or `MAX_LEAD` writes wait), the
   * flow waits for it. So a step's completion is durable about a commit after its end, whatever
   * the size of the flow: a flow of quick steps commits many as one statement (a flow of 10 000
   * modules, bound to one step ahead, waited for one commit of its whole status per step), and a
   * loaded worker's flows cannot outrun their commits (unbounded, they trailed by seconds, and a
   * crash ran every step of those seconds again).
   */
  async saveInBackground(
    run: FlowRun,
    statements: readonly SqlStatement[],
    then?: () => void,
  ): Promise<void> {
    const lead = leads.get(run) ?? [];
    leads.set(run, lead);
    const write: LeadingWrite = { at: Date.now(), landed: false, done: Promise.resolve() };
    // A write that failed has stopped the run (its next write refuses): nothing to wait for then.
    write.done = this.save(run, statements)
      .then(then)
      .catch(() => undefined)
      .finally(() => {
        write.landed = true;
      });
    lead.push(write);
    for (;;) {
      while (lead.length > 0 && lead[0].landed) lead.shift();
      const oldest = lead[0];
      if (!oldest || oldest === write) return;
      if (Date.now() - oldest.at < LEAD_MS && lead.length <= MAX_LEAD) return;
      await oldest.done;
    }
  }

  /** The held-back writes with these, and nothing held back any more. */
  takePending(
    run: FlowRun,
    statements: readonly SqlStatement[] = [],
    fields: JobUpdate = {},
  ): { statements: SqlStatement[]; fields: JobUpdate } {
    const taken = {
      statements: [...run.pending.statements, ...statements],
      fields: { ...run.pending.fields, ...fields },
    };
    run.pending = { statements: [], fields: {} };
    return taken;
  }
}

interface CancelRow {
  canceled_by: string | null;
  canceled_reason: string | null;
}

/** A write of a flow waiting for its turn; `landed` once it went out (alone or with others). */
interface QueuedWrite {
  readonly statements: readonly SqlStatement[];
  readonly fields: ReadonlyMap<string, unknown>;
  landed?: Promise<CancelRow[]>;
}

const queues = new WeakMap<FlowRun, QueuedWrite[]>();
/**
 * From how many modules a flow's module statuses are written as rows of their own, a changed one
 * at a time (`job_flow_module`): below it, the whole status is as cheap to write.
 */
const MODULES_IN_ROWS_FROM = 100;
/** What each large flow's module rows hold, as of its last write that landed. */
const writtenModules = new WeakMap<FlowRun, WrittenModules>();
/**
 * How long a flow's oldest write may be landing while the flow goes on (ms): a step's completion
 * is durable within about a commit of this after its end (issue 34: 100 ms, p99, under load).
 */
const LEAD_MS = 20;
/** How many writes of a flow may be landing while it goes on (one statement carries them all). */
const MAX_LEAD = 32;

/** A write made in the background, until it landed. */
interface LeadingWrite {
  readonly at: number;
  landed: boolean;
  done: Promise<void>;
}

/** A run's writes made in the background that may still be landing, oldest first. */
const leads = new WeakMap<FlowRun, LeadingWrite[]>();

function queued(run: FlowRun): QueuedWrite[] {
  let queue = queues.get(run);
  if (!queue) queues.set(run, (queue = []));
  return queue;
}

/** The oldest write, and after it those that may share its statement. */
function takeBatch(queue: QueuedWrite[], flowId: string): QueuedWrite[] {
  const batch = [queue.shift()!];
  const seen = new Set<string>([flowId]);
  const own = (write: QueuedWrite) => write.statements.every((statement) => touchesOwnRows(statement, seen));
  if (!own(batch[0])) return batch;
  while (queue.length > 0 && own(queue[0])) batch.push(queue.shift()!);
  return batch;
}
