import { createAgentStepClient, MeshError, type ResumeOutcome } from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import { Injectable } from '@nestjs/common';
import { JobStore } from '../store/job.store.js';

/**
 * Answers to AI steps parked on a request of their agent (tools that need approval, a question):
 * the step's job is `suspended` with `runtime.agentWait`, and agent-runtime, which holds the
 * agent's checkpoint, takes the answer (`agent.step.answer`) and resumes it. As in 000, there are
 * no approver rules for them: whoever may read the job answers, and so does the holder of a link
 * `resume_urls` signed for it (none is sent on its own).
 */
@Injectable()
export class AgentAnswers {
  constructor(
    private readonly jobs: JobStore,
    private readonly mesh: MeshClient,
  ) {}

  /** Whether job `jobId` is an AI step parked on its agent's request. */
  async isParked(workspace: string, jobId: string): Promise<boolean> {
    const job = await this.jobs.load(jobId);
    return (
      job?.workspace === workspace &&
      job.kind === 'aiagent' &&
      job.status === 'suspended' &&
      job.runtime.agentWait !== undefined
    );
  }

  async answer(
    workspace: string,
    jobId: string,
    approver: string,
    answer: { readonly approve: boolean; readonly payload: unknown },
  ): Promise<ResumeOutcome> {
    try {
      const reply = await createAgentStepClient(this.mesh).answer({
        job_id: jobId,
        workspace,
        approve: answer.approve,
        payload: answer.payload ?? {},
        approver,
      });
      return reply.outcome;
    } catch (error) {
      if (error instanceof MeshError && (error.code === 'UNAVAILABLE' || error.code === 'TIMEOUT'))
        throw new MeshError(
          'UNAVAILABLE',
          `no agent runtime answered: job ${jobId} keeps waiting; try again`,
          {
            id: jobId,
          },
        );
      throw error;
    }
  }
}
