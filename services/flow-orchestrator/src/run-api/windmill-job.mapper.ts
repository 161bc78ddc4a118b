import { isTerminalJobStatus, type Job, type JobSummary } from '@flowmesh/contracts';

/**
 * A job as Windmill's API shows it, so its clients read ours unchanged: `type` QueuedJob while
 * it runs (with `running`), CompletedJob once ended (with `success` and `result`); its
 * `script_path`, `job_kind`, `permissioned_as`, `is_flow_step`, ... Our own fields (`status`,
 * `root_job`, `completed_at`) ride along.
 */
export function toWindmillJob(job: Job): Record<string, unknown> {
  const completed = isTerminalJobStatus(job.status);
  return {
    ...summaryFields(job),
    args: job.args,
    raw_code: job.raw_code,
    raw_flow: job.raw_flow,
    flow_status: job.flow_status,
    ...(job.agent_actions ? { agent_actions: job.agent_actions } : {}),
    ...(completed ? { result: job.result } : {}),
  };
}

export function toWindmillJobSummary(job: JobSummary): Record<string, unknown> {
  return summaryFields(job);
}

type CommonFields = Omit<Job, 'args' | 'result' | 'raw_code' | 'raw_flow' | 'flow_status' | 'agent_actions'>;

function summaryFields(job: CommonFields): Record<string, unknown> {
  const completed = isTerminalJobStatus(job.status);
  return {
    type: completed ? 'CompletedJob' : 'QueuedJob',
    id: job.id,
    workspace_id: job.workspace,
    parent_job: job.parent_job,
    root_job: job.root_job,
    created_by: job.created_by,
    created_at: job.created_at,
    started_at: job.started_at,
    scheduled_for: job.scheduled_for,
    script_path: job.path,
    script_hash: job.script_hash,
    job_kind: job.kind,
    language: job.language,
    permissioned_as: job.on_behalf_of,
    email: job.email,
    is_flow_step: job.parent_job !== null,
    flow_step_id: job.flow_step_id,
    tag: job.tag,
    priority: job.priority,
    status: job.status,
    trigger_kind: job.trigger_kind ?? null,
    trigger: job.trigger ?? null,
    // Windmill's job names the schedule that started it.
    schedule_path: job.trigger_kind === 'schedule' ? (job.trigger ?? null) : null,
    ...(completed
      ? {
          success: job.status === 'completed',
          completed_at: job.completed_at,
          duration_ms: job.duration_ms,
          is_skipped: job.skipped,
          canceled: job.status === 'cancelled',
          canceled_by: job.canceled_by,
          canceled_reason: job.canceled_reason,
        }
      : {
          running: job.status === 'running',
          suspend: job.status === 'suspended' ? 1 : 0,
          canceled: job.canceled_by !== null,
          canceled_by: job.canceled_by,
          canceled_reason: job.canceled_reason,
        }),
  };
}
