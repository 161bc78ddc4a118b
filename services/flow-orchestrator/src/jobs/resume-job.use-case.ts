import { isTerminalJobStatus, MeshError, type FlowValue, type ResumeOutcome } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { EngineOutbox } from '../engine/engine-outbox.js';
import type { ResumeCommand } from './job-commands.js';
import { isFlowKind, type JobRecord } from '../store/job.record.js';
import { JobStore } from '../store/job.store.js';
import { ResumeStore } from '../store/resume.store.js';

/**
 * Records an approval (or a disapproval) of a flow parked on a `suspend` step, by the step's job
 * or by the flow job (then the step it waits after). Enough approvals, or one disapproval, wake
 * the flow; its driver decides from the recorded approvals.
 */
@Injectable()
export class ResumeJobUseCase {
  constructor(
    private readonly jobs: JobStore,
    private readonly resumes: ResumeStore,
    private readonly outbox: EngineOutbox,
  ) {}

  async resume(command: ResumeCommand): Promise<ResumeOutcome> {
    const target = await this.jobs.load(command.jobId);
    if (!target || target.workspace !== command.workspace) {
      throw new MeshError('NOT_FOUND', `job ${command.jobId} not found`, { id: command.jobId });
    }
    const { flow, suspendedJob, required } = await this.locate(target);
    await this.resumes.save({
      suspendedJob,
      resumeId: command.resumeId,
      flowJob: flow.id,
      approver: command.approver ?? null,
      approved: command.approve,
      value: command.payload,
    });
    const counts = await this.resumes.counts(suspendedJob);
    const outcome: ResumeOutcome =
      counts.disapproved > 0 ? 'cancelled' : counts.approved >= required ? 'resumed' : 'waiting';
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
    const suspended = await this.jobs.firstSuspendedFlow(flow.root_job);
    return suspended ? this.jobs.load(suspended) : undefined;
  }
}

function notWaiting(id: string): MeshError {
  return new MeshError('CONFLICT', `job ${id} is not waiting for an approval`, { id });
}
