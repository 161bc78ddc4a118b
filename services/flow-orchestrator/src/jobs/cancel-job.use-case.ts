import { isTerminalJobStatus, jobEvents, MeshError, type JobKind, type JobStatus } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { EngineOutbox } from '../engine/engine-outbox.js';
import { JobRepository } from './job.repository.js';
import { isFlowKind } from './job.record.js';

const isAgentKind = (kind: JobKind): boolean => kind === 'aiagent' || kind === 'aidecision';
import type { SqlStatement } from './sql-batch.js';

interface Marked {
  id: string;
  kind: JobKind;
  status: JobStatus;
  parent_job: string | null;
  lease_owner: string | null;
}

/**
 * Cancels a job and everything below it, in a few statements whatever the tree's size (the mark
 * walks the tree by its `parent_job` index). Each is marked; a flow job is woken so its driver ends
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
    // Set-based, so a tree of 10 000 jobs costs a few statements, not one per job: queued jobs
    // and AI steps end now, then every flow of the tree and every parent of an ended job is woken
    // (after its children ended, so its driver sees them).
    const ended = marked.filter(
      (row) => !isFlowKind(row.kind) && (row.status === 'queued' || isAgentKind(row.kind)),
    );
    const agentSteps = ended.filter((row) => isAgentKind(row.kind)).map((row) => row.id);
    const woken = new Set(marked.filter((row) => isFlowKind(row.kind)).map((row) => row.id));
    for (const row of ended) if (row.parent_job) woken.add(row.parent_job);
    const statements: SqlStatement[] = [
      ...(ended.length > 0
        ? [
            this.jobs.finishCancelled(
              ended.map((row) => row.id),
              result,
            ),
          ]
        : []),
      ...(woken.size > 0 ? this.jobs.wakeAll([...woken], `cancel-${id}`) : []),
    ];
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
    // Each statement alone, in order: the ends before the wakes.
    for (const statement of statements) await this.jobs.execute([statement]);
    this.outbox.afterCommit(statements);
    return true;
  }
}
