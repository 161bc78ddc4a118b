import { isTerminalJobStatus, MeshError, type FlowValue, type ResumeOutcome } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { EngineOutbox } from '../engine/engine-outbox.js';
import type { ResumeCommand } from './job-commands.js';
import { isFlowKind, type JobRecord } from './job.record.js';
import { JobRepository } from './job.repository.js';

/**
 * Records an approval (or a disapproval) of a flow parked on a `suspend` step, by the step's job
 * or by the flow job (then the step it waits after). Enough approvals, or one disapproval, wake
 * the flow; its driver decides from the recorded approvals.
 */
@Injectable()
export class ResumeJobUseCase {
  constructor(
    private readonly jobs: JobRepository,
    private readonly outbox: EngineOutbox,
  ) {}

  async resume(command: ResumeCommand): Promise<ResumeOutcome> {
    const target = await this.jobs.load(command.jobId);
    if (!target || target.workspace !== command.workspace) {
      throw new MeshError('NOT_FOUND', `job ${command.jobId} not found`, { id: command.jobId });
    }
    const { flow, suspendedJob, required } = await this.locate(target);
    await this.jobs.query(
      `INSERT INTO job_resume (suspended_job, resume_id, flow_job, approver, approved, value)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb)
       ON CONFLICT (suspended_job, resume_id) DO UPDATE
         SET approver = EXCLUDED.approver, approved = EXCLUDED.approved, value = EXCLUDED.value`,
      [
        suspendedJob,
        command.resumeId,
        flow.id,
        command.approver ?? null,
        command.approve,
        JSON.stringify(command.payload ?? null),
      ],
    );
    const [counts] = await this.jobs.query<{ approved: number; disapproved: number }>(
      `SELECT count(*) FILTER (WHERE approved)::int AS approved, count(*) FILTER (WHERE NOT approved)::int AS disapproved
       FROM job_resume WHERE suspended_job = $1`,
      [suspendedJob],
    );
    const outcome: ResumeOutcome =
      (counts?.disapproved ?? 0) > 0
        ? 'cancelled'
        : (counts?.approved ?? 0) >= required
          ? 'resumed'
          : 'waiting';
    if (outcome !== 'waiting') {
      const wake = this.jobs.wake(flow.id, 'resume');
      await this.jobs.execute(wake);
      this.outbox.afterCommit(wake);
    }
    return outcome;
  }

  /** The flow that waits, the step job whose approvals it counts, and how many it needs. */
  private async locate(
    target: JobRecord,
  ): Promise<{ flow: JobRecord; suspendedJob: string; required: number }> {
    let flow: JobRecord | undefined;
    let stepJob: string | undefined;
    if (isFlowKind(target.kind)) {
      flow = target.status === 'suspended' ? target : await this.suspendedBelow(target);
    } else {
      stepJob = target.id;
      flow = target.parent_job ? await this.jobs.load(target.parent_job) : undefined;
    }
    if (!flow || isTerminalJobStatus(flow.status) || !flow.flow_status) throw notWaiting(target.id);
    const modules = (flow.raw_flow as unknown as FlowValue).modules;
    let stepIndex: number;
    if (stepJob) {
      stepIndex = modules.findIndex((module) => module.id === target.flow_step_id);
    } else {
      const gate =
        flow.runtime.suspendTimeout?.step ??
        flow.flow_status.modules.findIndex((module) => module.type === 'WaitingForEvents');
      stepIndex = gate - 1;
      stepJob = flow.flow_status.modules[stepIndex]?.job;
    }
    const required = modules[stepIndex]?.suspend?.required_events ?? 0;
    if (!stepJob || required <= 0) throw notWaiting(target.id);
    return { flow, suspendedJob: stepJob, required };
  }

  /** A run's approval may wait in a flow below it (a loop iteration, a branch). */
  private async suspendedBelow(flow: JobRecord): Promise<JobRecord | undefined> {
    const rows = await this.jobs.query<{ id: string }>(
      `SELECT id FROM job WHERE root_job = $1 AND status = 'suspended' AND kind IN ('flow','flowpreview')
        ORDER BY created_at LIMIT 1`,
      [flow.root_job],
    );
    return rows[0] ? this.jobs.load(rows[0].id) : undefined;
  }
}

function notWaiting(id: string): MeshError {
  return new MeshError('CONFLICT', `job ${id} is not waiting for an approval`, { id });
}
