import {
  isTerminalJobStatus,
  MeshError,
  type AgentAction,
  type AgentStepCompleteRequest,
  type AgentStepWaiting,
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

  /**
   * The step parks on its agent's request (its job `suspended`, `runtime.agentWait` saying on
   * what, so the run API forwards answers) or runs again (`waiting` null). False once it ended.
   */
  async wait(workspace: string, jobId: string, waiting: AgentStepWaiting): Promise<boolean> {
    const rows = await this.jobs.query<{ id: string }>(
      `UPDATE job SET
         status = CASE WHEN $3::jsonb IS NULL THEN 'running' ELSE 'suspended' END,
         runtime = CASE WHEN $3::jsonb IS NULL THEN runtime - 'agentWait'
                        ELSE jsonb_set(runtime, '{agentWait}', $3::jsonb) END
       WHERE id = $1 AND workspace = $2 AND kind = 'aiagent' AND status IN ('running','suspended')
       RETURNING id`,
      [jobId, workspace, waiting === null ? null : JSON.stringify(waiting)],
    );
    return rows.length > 0;
  }

  /** Of these AI step jobs, those not in the queue any more: ended, or not an AI step of that workspace. */
  async ended(steps: readonly { job_id: string; workspace: string }[]): Promise<string[]> {
    if (steps.length === 0) return [];
    const queued = await this.jobs.query<{ id: string }>(
      `SELECT j.id FROM job j
         JOIN unnest($1::uuid[], $2::text[]) AS s(id, workspace) ON s.id = j.id AND s.workspace = j.workspace
        WHERE j.kind IN ('aiagent','aidecision') AND j.status NOT IN ('completed','failed','cancelled')`,
      [steps.map((step) => step.job_id), steps.map((step) => step.workspace)],
    );
    const alive = new Set(queued.map((row) => row.id));
    return steps.map((step) => step.job_id).filter((id) => !alive.has(id));
  }

  /** A line of the step's job log; false once the step has ended (or is not an AI step of the workspace). */
  async log(workspace: string, jobId: string, line: string): Promise<boolean> {
    const rows = await this.jobs.query<{ id: string }>(
      `INSERT INTO job_log (job_id, chunk)
       SELECT id, $3 FROM job
       WHERE id = $1 AND workspace = $2 AND kind IN ('aiagent','aidecision')
         AND status NOT IN ('completed','failed','cancelled')
       RETURNING job_id AS id`,
      [jobId, workspace, `${line.replace(/\n+$/, '')}\n`],
    );
    return rows.length > 0;
  }

  /** The step's end, with the last actions it did not report on their own (kept in the same write). */
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
      this.jobs.finish(job.id, {
        status: request.success ? 'completed' : 'failed',
        result: request.result,
        ...(request.actions?.length
          ? { appendAgentActions: request.actions.map(({ action, success }) => ({ action, success })) }
          : {}),
      }),
      ...(job.parent_job ? this.jobs.wake(job.parent_job, `agent-${job.id}`) : []),
    ];
    await this.jobs.execute(statements);
    this.outbox.afterCommit(statements);
    return true;
  }
}
