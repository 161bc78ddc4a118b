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

  async save(run: FlowRun, statements: readonly SqlStatement[] = [], fields: JobUpdate = {}): Promise<void> {
    if (run.ephemeral) return;
    const rows = await run.serialize(() =>
      this.jobs.execute<{ canceled_by: string | null; canceled_reason: string | null }>([
        ...statements,
        this.jobs.update(run.id, { flow_status: run.status, runtime: run.runtime, ...fields }),
      ]),
    );
    const row = rows[0];
    if (row?.canceled_by && !run.cancelRequest) run.cancelRequest = { by: row.canceled_by, reason: row.canceled_reason };
    if (statements.length > 0) this.outbox.wake();
  }
}
