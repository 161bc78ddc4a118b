import { Injectable } from '@nestjs/common';
import { JobRepository, type JobUpdate } from '../jobs/job.repository.js';
import type { SqlStatement } from '../jobs/sql-batch.js';
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
    private readonly jobs: JobRepository,
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
    const update = this.jobs.update(run.id, { flow_status: run.status, runtime: run.runtime, ...fields });
    const rows = await run.serialize(() =>
      this.jobs.execute<{ canceled_by: string | null; canceled_reason: string | null }>([
        ...statements,
        update,
      ]),
    );
    const row = rows[0];
    if (row?.canceled_by && !run.cancelRequest)
      run.cancelRequest = { by: row.canceled_by, reason: row.canceled_reason };
    this.outbox.afterCommit(statements);
  }

  /**
   * The same write, not waited for: the flow goes on to its next step while this one commits
   * (writes land in order; a failed one stops the run before it commits anything else). A step
   * started meanwhile is in flight as far as a crash is concerned: it runs again, the step whose
   * commit was lost too.
   */
  saveInBackground(run: FlowRun, statements: readonly SqlStatement[], then?: () => void): void {
    this.save(run, statements).then(then, () => undefined);
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
