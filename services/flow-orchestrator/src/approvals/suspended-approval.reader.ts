import { isTerminalJobStatus, SuspendSchema, type FlowStatus, type Suspend } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { isFlowKind, type JobRecord } from '../store/job.record.js';
import { JobStore } from '../store/job.store.js';
import { ResumeStore } from '../store/resume.store.js';

/** A flow parked on a step with `suspend`, as an approver answering it needs to know it. */
export interface SuspendedApproval {
  /** The flow job that waits. */
  readonly flowJobId: string;
  /** The step that suspended it, and that step's job when it ran one. */
  readonly stepId: string;
  readonly stepJobId: string | undefined;
  readonly suspend: Suspend;
  /** Who started the flow: `self_approval_disabled` refuses them. */
  readonly createdBy: string;
  readonly email: string;
  /** Approvals still needed. */
  readonly remaining: number;
  /** The expression context of `user_groups_required` when it is an expression. */
  readonly context: Readonly<Record<string, unknown>>;
}

interface ModuleDefinition {
  readonly id?: unknown;
  readonly suspend?: unknown;
}

/**
 * The approval a flow waits on, read from the engine's rows the way its resume use case finds
 * it: the step's own job names its flow; a flow job names itself or the flow below it that is
 * suspended (a loop iteration, a branch), whose gate (`WaitingForEvents`, or the engine's
 * timeout record) stands after the step with `suspend`. The approvals so far are the step's
 * `job_resume` rows.
 */
@Injectable()
export class SuspendedApprovalReader {
  constructor(
    private readonly jobs: JobStore,
    private readonly resumes: ResumeStore,
  ) {}

  async read(workspace: string, jobId: string): Promise<SuspendedApproval | undefined> {
    const target = await this.jobs.load(jobId);
    if (!target || target.workspace !== workspace) return undefined;
    const flow = await this.waitingFlow(target);
    if (!flow?.flow_status || isTerminalJobStatus(flow.status) || flow.status !== 'suspended')
      return undefined;
    const modules = modulesOf(flow.raw_flow);
    const stepIndex = isFlowKind(target.kind)
      ? gateOf(flow) - 1
      : modules.findIndex((module) => module.id === target.flow_step_id);
    const definition = modules[stepIndex];
    const parsed = SuspendSchema.safeParse(definition?.suspend);
    const stepJobId = isFlowKind(target.kind) ? flow.flow_status.modules[stepIndex]?.job : target.id;
    if (!definition || !parsed.success || stepJobId === undefined) return undefined;
    const suspend: Suspend = parsed.data;
    const required = suspend.required_events ?? 0;
    if (required <= 0) return undefined;
    const answers = await this.resumes.counts(stepJobId);
    return {
      flowJobId: flow.id,
      stepId: typeof definition.id === 'string' ? definition.id : String(stepIndex),
      stepJobId,
      suspend,
      createdBy: flow.created_by,
      email: flow.email,
      remaining: Math.max(1, required - answers.approved),
      context: { flow_input: flow.args, results: await this.resultsOf(flow.flow_status) },
    };
  }

  private async waitingFlow(target: JobRecord): Promise<JobRecord | undefined> {
    if (!isFlowKind(target.kind)) return target.parent_job ? this.jobs.load(target.parent_job) : undefined;
    if (target.status === 'suspended') return target;
    const suspended = await this.jobs.firstSuspendedFlow(target.root_job);
    return suspended ? this.jobs.load(suspended) : undefined;
  }

  /** Results of the flow's steps that have ended, by step id, for `user_groups_required` expressions. */
  private async resultsOf(status: FlowStatus): Promise<Record<string, unknown>> {
    const done = status.modules.filter((module) => module.id !== undefined && module.job !== undefined);
    const rows = await this.jobs.results(done.map((module) => module.job as string));
    const results: Record<string, unknown> = {};
    done.forEach((module, index) => {
      const row = rows[index];
      if (row && (row.status === 'completed' || row.status === 'failed'))
        results[module.id as string] = row.result;
    });
    return results;
  }
}

function modulesOf(rawFlow: Record<string, unknown> | null): ModuleDefinition[] {
  const value =
    rawFlow && 'modules' in rawFlow ? rawFlow : (rawFlow?.value as Record<string, unknown> | undefined);
  const modules = value?.modules;
  return Array.isArray(modules) ? (modules as ModuleDefinition[]) : [];
}

/** Index of the module the flow waits in front of: the engine's timeout record, or its `WaitingForEvents` module. */
function gateOf(flow: JobRecord): number {
  const fromRuntime = flow.runtime.suspendTimeout?.step;
  if (fromRuntime !== undefined) return fromRuntime;
  return flow.flow_status?.modules.findIndex((module) => module.type === 'WaitingForEvents') ?? -1;
}
