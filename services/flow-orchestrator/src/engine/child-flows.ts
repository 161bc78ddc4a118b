import { randomUUID } from 'node:crypto';
import type { FlowModule, FlowValue, JobKind } from '@flowmesh/contracts';
import type { JobRecord, JobRuntime } from '../store/job.record.js';
import { initialFlowStatus } from './flow-status.util.js';
import type { FlowRun } from './flow-run.js';

/** The default tag of script steps when neither the run nor the step names one. */
export const DEFAULT_STEP_TAG = 'default';
/** The default tag of flow jobs. */
export const DEFAULT_FLOW_TAG = 'flow';

/** `<flow path>/<suffix>`, or null for a flow run without a path. */
export function childPath(run: FlowRun, suffix: string): string | null {
  return run.job.path ? `${run.job.path}/${suffix}` : null;
}

/** What a child job inherits from the flow that runs it: identity, tag rule, environment. */
export function inheritedRuntime(run: FlowRun): JobRuntime {
  const runtime: JobRuntime = {};
  if (run.runtime.customTag) runtime.customTag = true;
  if (run.runtime.preserveStepTags) runtime.preserveStepTags = true;
  if (run.runtime.sameWorker || run.value.same_worker) runtime.sameWorker = true;
  runtime.tokenJob = run.runtime.tokenJob ?? run.id;
  if (run.runtime.envJob) runtime.envJob = run.runtime.envJob;
  if (run.runtime.flowChain) runtime.flowChain = run.runtime.flowChain;
  return runtime;
}

/** A body of a loop iteration or a branch, run as a child flow job of `run`. */
export function bodyRecord(
  run: FlowRun,
  spec: {
    id?: string;
    module: FlowModule;
    modules: FlowModule[];
    suffix: string;
    args: Record<string, unknown>;
  },
): JobRecord {
  const value: FlowValue = { modules: spec.modules };
  if (run.value.same_worker) value.same_worker = true;
  return childFlowRecord(run, {
    id: spec.id ?? randomUUID(),
    kind: 'flowpreview',
    path: childPath(run, spec.suffix),
    stepId: spec.module.id,
    value,
    args: spec.args,
    runtime: inheritedRuntime(run),
    tag: run.job.tag,
    priority: spec.module.priority ?? run.job.priority,
  });
}

export function childFlowRecord(
  run: FlowRun,
  spec: {
    id: string;
    kind: JobKind;
    path: string | null;
    stepId: string;
    value: FlowValue;
    args: Record<string, unknown>;
    runtime: JobRuntime;
    tag: string;
    priority: number | null | undefined;
  },
): JobRecord {
  const now = new Date();
  return {
    id: spec.id,
    workspace: run.job.workspace,
    kind: spec.kind,
    parent_job: run.id,
    root_job: run.job.root_job,
    path: spec.path,
    script_hash: null,
    flow_step_id: spec.stepId,
    language: null,
    raw_code: null,
    raw_lock: null,
    raw_flow: spec.value,
    args: spec.args,
    status: 'running',
    result: null,
    flow_status: initialFlowStatus(spec.value),
    runtime: spec.runtime,
    created_by: run.job.created_by,
    on_behalf_of: run.job.on_behalf_of,
    email: run.job.email,
    tag: spec.tag,
    priority: spec.priority ?? null,
    skipped: false,
    canceled_by: run.cancelRequest?.by ?? null,
    canceled_reason: run.cancelRequest?.reason ?? null,
    created_at: now,
    scheduled_for: null,
    started_at: now,
    completed_at: null,
    duration_ms: null,
    wake_at: null,
    wake_seq: 0,
  };
}
