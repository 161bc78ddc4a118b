import {
  isTerminalJobStatus,
  MeshError,
  type AgentAction,
  type AgentStepCompleteRequest,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { EngineOutbox } from '../engine/engine-outbox.js';
import { JobRepository } from './job.repository.js';

/**
 * What agent-runtime reports about an AI step it runs: its actions (kept on the step job and
 * copied into the module's `agent_actions` when it ends) and its end, which wakes the flow.
 */
@Injectable()
export class AgentStepUseCase {
  constructor(
    private readonly jobs: JobRepository,
    private readonly outbox: EngineOutbox,
  ) {}

  async reportAction(
    workspace: string,
    jobId: string,
    action: AgentAction,
    success?: boolean,
  ): Promise<boolean> {
    const rows = await this.jobs.query<{ id: string }>(
      `UPDATE job SET runtime = jsonb_set(
           jsonb_set(runtime, '{agentActions}', COALESCE(runtime->'agentActions', '[]'::jsonb) || jsonb_build_array($3::jsonb)),
           '{agentActionsSuccess}', COALESCE(runtime->'agentActionsSuccess', '[]'::jsonb) || jsonb_build_array($4::boolean))
       WHERE id = $1 AND workspace = $2 AND kind IN ('aiagent','aidecision')
         AND status NOT IN ('completed','failed','cancelled')
       RETURNING id`,
      [jobId, workspace, JSON.stringify(action), success ?? true],
    );
    return rows.length > 0;
  }

  async complete(request: AgentStepCompleteRequest): Promise<boolean> {
    const job = await this.jobs.load(request.job_id);
    if (
      !job ||
      job.workspace !== request.workspace ||
      (job.kind !== 'aiagent' && job.kind !== 'aidecision')
    ) {
      throw new MeshError('NOT_FOUND', `AI step job ${request.job_id} not found`, { id: request.job_id });
    }
    if (isTerminalJobStatus(job.status)) return false;
    const statements = [
      this.jobs.finish(job.id, { status: request.success ? 'completed' : 'failed', result: request.result }),
      ...(job.parent_job ? this.jobs.wake(job.parent_job, `agent-${job.id}`) : []),
    ];
    await this.jobs.execute(statements);
    this.outbox.afterCommit(statements);
    return true;
  }
}
