import { Injectable } from '@nestjs/common';
import { JobStore, type JobUpdate } from '../store/job.store.js';
import { rowsTouched, touchesOwnRows, type SqlStatement } from '../store/sql-batch.js';
import { WriteGroups } from '../store/write-groups.js';
import { EngineOutbox } from './engine-outbox.js';
import type { FlowRun } from './flow-run.js';

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
    // The status is encoded now, with the writes that go with it: a write queued behind others
    // must not carry state whose own writes are still queued after it.
    const write: QueuedWrite = {
      statements,
      fields: this.jobs.encodeUpdate({ flow_status: run.status, runtime: run.runtime, ...fields }),
    };
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
      const landed = this.groups.write<CancelRow>({
        id: run.id,
        statements: [...statements, this.jobs.updateEncoded(run.id, fields)],
        rows: rowsTouched(statements, run.id),
      });
      for (const write of writes) write.landed = landed;
      return landed.then((rows) => {
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
   * The same write, not waited for: the flow goes on to its next step while this one commits
   * (writes land in order; a failed one stops the run before it commits anything else). A step
   * started meanwhile is in flight as far as a crash is concerned: it runs again, the step whose
   * commit was lost too. Resolves once the run's write before this one has landed, and the flow
   * waits for that: a run is never more than one step ahead of its commits, so a step that ended
   * is committed within about two commit times. Unbounded, a loaded worker's flows outran their
   * commits by seconds, and a crash then ran every step of those seconds again.
   */
  async saveInBackground(
    run: FlowRun,
    statements: readonly SqlStatement[],
    then?: () => void,
  ): Promise<void> {
    const before = trailing.get(run);
    // A write that failed has stopped the run (its next write refuses): nothing to wait for then.
    const saving = this.save(run, statements)
      .then(then)
      .catch(() => undefined);
    trailing.set(run, saving);
    await before;
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
/** A run's last write made in the background, until the next one takes its place. */
const trailing = new WeakMap<FlowRun, Promise<void>>();

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
