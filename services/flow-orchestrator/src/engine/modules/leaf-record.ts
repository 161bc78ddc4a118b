import type { FlowModule, JobKind } from '@flowmesh/contracts';
import type { JobRecord, JobRuntime } from '../../store/job.record.js';
import type { FlowRun } from '../flow-run.js';

/** The row of a step job (script, identity, AI step) of `run`. */
export function leafRecord(
  run: FlowRun,
  module: FlowModule,
  spec: {
    id: string;
    kind: JobKind;
    tag: string;
    path: string | null;
    args: Record<string, unknown>;
    runtime: JobRuntime;
    language?: string | null;
    content?: string | null;
    lock?: string | null;
    hash?: string | null;
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
    script_hash: spec.hash ?? null,
    flow_step_id: module.id,
    language: spec.language ?? null,
    raw_code: spec.content ?? null,
    raw_lock: spec.lock ?? null,
    raw_flow: null,
    args: spec.args,
    status: 'queued',
    result: null,
    flow_status: null,
    runtime: spec.runtime,
    created_by: run.job.created_by,
    on_behalf_of: run.job.on_behalf_of,
    email: run.job.email,
    tag: spec.tag,
    priority: module.priority ?? run.job.priority,
    skipped: false,
    canceled_by: null,
    canceled_reason: null,
    created_at: now,
    scheduled_for: null,
    started_at: null,
    completed_at: null,
    duration_ms: null,
    wake_at: null,
    wake_seq: 0,
  };
}

/** The same row, ended. */
export function endedRecord(
  record: JobRecord,
  outcome: { success: boolean; result: unknown; startedAt: Date; durationMs: number; skipped?: boolean },
): JobRecord {
  return {
    ...record,
    status: outcome.success ? 'completed' : 'failed',
    result: outcome.result,
    skipped: outcome.skipped ?? false,
    started_at: outcome.startedAt,
    completed_at: new Date(outcome.startedAt.getTime() + outcome.durationMs),
    duration_ms: outcome.durationMs,
  };
}
