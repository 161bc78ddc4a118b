import type { AgentAction, AgentStepWaiting } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { ConnectionLanes } from './connection-lanes.js';

/** The job rows of AI steps, as agent-runtime (which runs them) reports on them. */
@Injectable()
export class AgentStepStore {
  constructor(private readonly lanes: ConnectionLanes) {}

  /** Appends an action to an AI step that has not ended; false when it has (or is not one of the workspace). */
  async appendAction(
    workspace: string,
    jobId: string,
    action: AgentAction,
    success: boolean,
  ): Promise<boolean> {
    const rows = await this.lanes.query<{ id: string }>(
      `UPDATE job SET runtime = jsonb_set(
           jsonb_set(runtime, '{agentActions}', COALESCE(runtime->'agentActions', '[]'::jsonb) || jsonb_build_array($3::jsonb)),
           '{agentActionsSuccess}', COALESCE(runtime->'agentActionsSuccess', '[]'::jsonb) || jsonb_build_array($4::boolean))
       WHERE id = $1 AND workspace = $2 AND kind IN ('aiagent','aidecision')
         AND status NOT IN ('completed','failed','cancelled')
       RETURNING id`,
      [jobId, workspace, JSON.stringify(action), success],
    );
    return rows.length > 0;
  }

  /**
   * Sets the success of the step's last action of `type` whose `field` is `value` (a tool call
   * reported before its tool ran); false when the step ended or has no such action.
   */
  async settleAction(
    workspace: string,
    jobId: string,
    call: { type: string; field: string; value: string },
    success: boolean,
  ): Promise<boolean> {
    const rows = await this.lanes.query<{ id: string }>(
      `WITH target AS (
         SELECT j.id, max(a.n) - 1 AS i FROM job j,
           jsonb_array_elements(j.runtime->'agentActions') WITH ORDINALITY AS a(action, n)
         WHERE j.id = $1 AND j.workspace = $2 AND j.kind IN ('aiagent','aidecision')
           AND j.status NOT IN ('completed','failed','cancelled')
           AND a.action->>'type' = $3 AND a.action->>$4 = $5
         GROUP BY j.id
       )
       UPDATE job SET runtime = jsonb_set(runtime, ARRAY['agentActionsSuccess', target.i::text], to_jsonb($6::boolean))
       FROM target WHERE job.id = target.id
       RETURNING job.id`,
      [jobId, workspace, call.type, call.field, call.value, success],
    );
    return rows.length > 0;
  }

  /** Parks an AI step on `waiting` (`suspended`), or runs it again (null); false once it ended. */
  async setWait(workspace: string, jobId: string, waiting: AgentStepWaiting): Promise<boolean> {
    const rows = await this.lanes.query<{ id: string }>(
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

  /** Of these AI steps, the ids of those still queued or running (in their workspace). */
  async live(steps: readonly { job_id: string; workspace: string }[]): Promise<Set<string>> {
    const queued = await this.lanes.query<{ id: string }>(
      `SELECT j.id FROM job j
         JOIN unnest($1::uuid[], $2::text[]) AS s(id, workspace) ON s.id = j.id AND s.workspace = j.workspace
        WHERE j.kind IN ('aiagent','aidecision') AND j.status NOT IN ('completed','failed','cancelled')`,
      [steps.map((step) => step.job_id), steps.map((step) => step.workspace)],
    );
    return new Set(queued.map((row) => row.id));
  }

  /** A chunk of an AI step's log; false once the step has ended (or is not an AI step of the workspace). */
  async appendLog(workspace: string, jobId: string, chunk: string): Promise<boolean> {
    const rows = await this.lanes.query<{ id: string }>(
      `INSERT INTO job_log (job_id, chunk)
       SELECT id, $3 FROM job
       WHERE id = $1 AND workspace = $2 AND kind IN ('aiagent','aidecision')
         AND status NOT IN ('completed','failed','cancelled')
       RETURNING job_id AS id`,
      [jobId, workspace, chunk],
    );
    return rows.length > 0;
  }
}
