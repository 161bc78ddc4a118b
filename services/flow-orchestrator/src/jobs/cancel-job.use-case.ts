import { isTerminalJobStatus, jobEvents, MeshError, type JobKind, type JobStatus } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { EngineOutbox } from '../engine/engine-outbox.js';
import { JobRepository } from './job.repository.js';
import { isFlowKind } from './job.record.js';
import type { SqlStatement } from './sql-batch.js';

interface Marked {
  id: string;
  kind: JobKind;
  status: JobStatus;
  parent_job: string | null;
  lease_owner: string | null;
}

/**
 * Cancels a job and everything below it. Each is marked; a flow job is woken so its driver ends
 * it (one driving it now sees the mark at its next commit); a queued script job ends at once; a
 * running script is aborted by its worker, a running AI step by agent-runtime
 * (`evt.job.cancel_requested`, which names the AI steps).
 */
@Injectable()
export class CancelJobUseCase {
  constructor(
    private readonly jobs: JobRepository,
    private readonly outbox: EngineOutbox,
  ) {}

  async cancel(workspace: string, id: string, by: string, reason: string | null): Promise<boolean> {
    const job = await this.jobs.load(id);
    if (!job || job.workspace !== workspace) throw new MeshError('NOT_FOUND', `job ${id} not found`, { id });
    if (isTerminalJobStatus(job.status)) return false;
    const marked = await this.jobs.queryManyRows<Marked>(
      `WITH RECURSIVE tree AS (
         SELECT id FROM job WHERE id = $1
         UNION ALL SELECT j.id FROM job j JOIN tree t ON j.parent_job = t.id)
       UPDATE job SET canceled_by = $2, canceled_reason = $3
       WHERE id IN (SELECT id FROM tree) AND status NOT IN ('completed','failed','cancelled')
       RETURNING id, kind, status, parent_job, lease_owner`,
      [id, by, reason],
    );
    const result = {
      error: {
        name: 'Canceled',
        message: `Job canceled: ${reason ?? 'no reason given'} by ${by}`,
        reason,
        canceler: by,
      },
    };
    const statements: SqlStatement[] = [];
    const agentSteps: string[] = [];
    for (const row of marked) {
      if (isFlowKind(row.kind)) {
        statements.push(...this.jobs.wake(row.id, 'cancel'));
      } else if (row.status === 'queued' || row.kind === 'aiagent' || row.kind === 'aidecision') {
        if (row.kind === 'aiagent' || row.kind === 'aidecision') agentSteps.push(row.id);
        statements.push(this.jobs.finish(row.id, { status: 'cancelled', result }));
        if (row.parent_job) statements.push(...this.jobs.wake(row.parent_job, `cancel-${row.id}`));
      }
    }
    statements.push(
      this.jobs.event(
        jobEvents.cancelRequested,
        {
          job_id: id,
          workspace,
          root_job: job.root_job,
          parent_job: job.parent_job,
          by,
          reason,
          ...(agentSteps.length > 0 ? { agent_steps: agentSteps } : {}),
        },
        `cancel:${id}:${Date.now()}`,
      ),
    );
    // Each statement alone: several may touch the same flow row (a wake and its child's end).
    for (const statement of statements) await this.jobs.execute([statement]);
    this.outbox.afterCommit(statements);
    return true;
  }
}
