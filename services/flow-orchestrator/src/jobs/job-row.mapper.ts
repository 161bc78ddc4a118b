import type { Job, JobSummary } from '@flowmesh/contracts';
import type { JobRecord } from '../store/job.record.js';

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

/** The public job (`JobSchema`) of a row. */
export function toJob(record: JobRecord): Job {
  return {
    ...toSummaryFields(record),
    language: record.language as Job['language'],
    raw_code: record.raw_code,
    raw_flow: record.raw_flow,
    args: record.args,
    result: record.result ?? null,
    flow_status: record.flow_status,
    ...(record.runtime.agentActions
      ? { agent_actions: record.runtime.agentActions as Job['agent_actions'] }
      : {}),
  };
}

export function toJobSummary(record: JobRecord): JobSummary {
  return {
    ...toSummaryFields(record),
    language: record.language as Job['language'],
    success: successOf(record),
  };
}

function toSummaryFields(record: JobRecord) {
  return {
    id: record.id,
    kind: record.kind,
    workspace: record.workspace,
    parent_job: record.parent_job,
    root_job: record.root_job,
    path: record.path,
    script_hash: record.script_hash,
    flow_step_id: record.flow_step_id,
    status: record.status,
    created_by: record.created_by,
    on_behalf_of: record.on_behalf_of,
    email: record.email,
    tag: record.tag,
    priority: record.priority,
    skipped: record.skipped,
    canceled_by: record.canceled_by,
    canceled_reason: record.canceled_reason,
    created_at: record.created_at.toISOString(),
    scheduled_for: iso(record.scheduled_for),
    started_at: iso(record.started_at),
    completed_at: iso(record.completed_at),
    duration_ms: record.duration_ms,
    trigger_kind: record.trigger_kind ?? null,
    trigger: record.trigger_path ?? null,
  };
}

export function successOf(record: Pick<JobRecord, 'status'>): boolean | null {
  if (record.status === 'completed') return true;
  if (record.status === 'failed' || record.status === 'cancelled') return false;
  return null;
}
