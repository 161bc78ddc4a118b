import {
  isTerminalJobStatus,
  MeshError,
  type AgentAction,
  type AgentStepCompleteRequest,
  type AgentStepWaiting,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { EngineOutbox } from '../engine/engine-outbox.js';
import { AgentStepStore } from '../store/agent-step.store.js';
import { JobStore } from '../store/job.store.js';

/**
 * What agent-runtime reports about an AI step it runs: its actions (kept on the step job and
 * copied into the module's `agent_actions` when it ends) and its end, which wakes the flow.
 */
@Injectable()
export class AgentStepUseCase {
  constructor(
    private readonly jobs: JobStore,
    private readonly steps: AgentStepStore,
    private readonly outbox: EngineOutbox,
  ) {}

  async reportAction(
    workspace: string,
    jobId: string,
    action: AgentAction,
    success?: boolean,
  ): Promise<boolean> {
    return this.steps.appendAction(workspace, jobId, action, success ?? true);
  }

  /**
   * The success of a tool call reported before its tool ran (`agent_actions_success` in step with
   * `agent_actions`: false once its job failed). False once the step ended, or for no such call.
   */
  async settleAction(
    workspace: string,
    jobId: string,
    action: AgentAction,
    success: boolean,
  ): Promise<boolean> {
    const key =
      action.type === 'tool_call'
        ? { field: 'job_id', value: action.job_id }
        : action.type === 'mcp_tool_call'
          ? { field: 'call_id', value: action.call_id }
          : undefined;
    if (!key)
      throw new MeshError(
        'VALIDATION_FAILED',
        `only a tool call's success is settled, not a ${action.type}`,
        {
          param: 'action.type',
        },
      );
    return this.steps.settleAction(workspace, jobId, { type: action.type, ...key }, success);
  }

  /**
   * The step parks on its agent's request (its job `suspended`, `runtime.agentWait` saying on
   * what, so the run API forwards answers) or runs again (`waiting` null). False once it ended.
   */
  async wait(workspace: string, jobId: string, waiting: AgentStepWaiting): Promise<boolean> {
    return this.steps.setWait(workspace, jobId, waiting);
  }

  /** Of these AI step jobs, those not in the queue any more: ended, or not an AI step of that workspace. */
  async ended(steps: readonly { job_id: string; workspace: string }[]): Promise<string[]> {
    if (steps.length === 0) return [];
    const alive = await this.steps.live(steps);
    return steps.map((step) => step.job_id).filter((id) => !alive.has(id));
  }

  /** A line of the step's job log; false once the step has ended (or is not an AI step of the workspace). */
  async log(workspace: string, jobId: string, line: string): Promise<boolean> {
    return this.steps.appendLog(workspace, jobId, `${line.replace(/\n+$/, '')}\n`);
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
