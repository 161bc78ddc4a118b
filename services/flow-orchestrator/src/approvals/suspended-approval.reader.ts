import { SuspendSchema, type FlowStatus, type Suspend } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { isFlowKind, type JobRecord } from '../jobs/job.record.js';
import { JobRepository } from '../jobs/job.repository.js';
import type { SuspendedApproval } from '../run-api/jobs-engine.port.js';

interface ModuleDefinition {
  readonly id?: unknown;
  readonly suspend?: unknown;
}

/**
 * The approval a flow waits on, read from the engine's rows: the flow job (or, for a step's job,
 * its flow), the gate in front of the step after the one with `suspend` (Windmill's layout: that
 * next module is `WaitingForEvents`), the step's `suspend` from the flow value the run started
 * with, and the approvals it has had so far.
 */
@Injectable()
export class SuspendedApprovalReader {
  constructor(private readonly jobs: JobRepository) {}

  async read(workspace: string, jobId: string): Promise<SuspendedApproval | undefined> {
    const job = await this.jobs.load(jobId);
    if (!job || job.workspace !== workspace) return undefined;
    const flow = isFlowKind(job.kind)
      ? job
      : job.parent_job
        ? await this.jobs.load(job.parent_job)
        : undefined;
    if (!flow || flow.status !== 'suspended' || !flow.flow_status) return undefined;
    const modules = modulesOf(flow.raw_flow);
    const gate = gateOf(flow, modules.length);
    const stepIndex = gate === undefined ? -1 : gate - 1;
    const definition = modules[stepIndex];
    const parsed = SuspendSchema.safeParse(definition?.suspend);
    if (!definition || !parsed.success) return undefined;
    const suspend: Suspend = parsed.data;
    const stepStatus = flow.flow_status.modules[stepIndex];
    const received = stepStatus?.approvers?.length ?? 0;
    return {
      flowJobId: flow.id,
      stepId: typeof definition.id === 'string' ? definition.id : String(stepIndex),
      stepJobId: stepStatus?.job,
      suspend,
      createdBy: flow.created_by,
      email: flow.email,
      remaining: Math.max(1, (suspend.required_events ?? 1) - received),
      context: { flow_input: flow.args, results: await this.resultsOf(flow.flow_status) },
    };
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

/** Index of the module the flow waits in front of: the engine's gate, its `WaitingForEvents` module, or the end. */
function gateOf(flow: JobRecord, moduleCount: number): number | undefined {
  const fromRuntime = flow.runtime.suspendTimeout?.step;
  if (fromRuntime !== undefined) return fromRuntime;
  const waiting = flow.flow_status?.modules.findIndex((module) => module.type === 'WaitingForEvents') ?? -1;
  return waiting >= 0 ? waiting : moduleCount;
}
