import { z } from 'zod';
import { AgentActionSchema, FlowStatusSchema } from '../openflow/flow-status.schema.js';
import { RAW_SCRIPT_LANGUAGES } from '../openflow/script-modules.schema.js';
import { TriggerKindSchema } from './trigger.schema.js';

/**
 * A job of the flow-orchestrator: a flow run, a script run, a flow step or an agent step. Jobs
 * form a tree: a step, a loop iteration or a branch is a child (`parent_job`) of the flow job
 * that ran it, and every job names the job at the top of its tree (`root_job`, itself for a
 * root). Kinds follow Windmill's names so its clients read them unchanged:
 * - `flow` a saved flow by path, `flowpreview` a flow value run inline (also the body of one
 *   loop iteration or one branch, a child flow job of the loop/branch step);
 * - `script` a saved script by path (and hash), `preview` an inline script run on its own,
 *   `flowscript` a `rawscript` step of a flow;
 * - `identity` an identity step; `aiagent` / `aidecision` a step handed to agent-runtime.
 */
export const JOB_KINDS = [
  'flow',
  'flowpreview',
  'script',
  'preview',
  'flowscript',
  'identity',
  'aiagent',
  'aidecision',
] as const;
export const JobKindSchema = z.enum(JOB_KINDS);
export type JobKind = z.infer<typeof JobKindSchema>;

/** `suspended`: a flow parked on an approval step, holding no worker. */
export const JOB_STATUSES = ['queued', 'running', 'suspended', 'completed', 'failed', 'cancelled'] as const;
export const JobStatusSchema = z.enum(JOB_STATUSES);
export type JobStatus = z.infer<typeof JobStatusSchema>;

export const TERMINAL_JOB_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

export function isTerminalJobStatus(status: JobStatus): boolean {
  return TERMINAL_JOB_STATUSES.includes(status);
}

/**
 * What a failed job returns, as Windmill does: its result is `{ error: JobError }`. `step_id`
 * is set on the error a flow failed with (the step that failed); an early stop with an
 * error message is `EarlyStopError`, a disapproval `SuspendedDisapproved`, an approval
 * timeout `SuspendedTimedOut`, a cancel `Canceled`.
 */
export const JobErrorSchema = z.looseObject({
  name: z.string(),
  message: z.string(),
  stack: z.string().optional(),
  step_id: z.string().optional(),
});
export type JobErrorShape = z.infer<typeof JobErrorSchema>;

export const JobLanguageSchema = z.enum(RAW_SCRIPT_LANGUAGES);

export const JobSchema = z.object({
  id: z.uuid(),
  kind: JobKindSchema,
  workspace: z.string(),
  parent_job: z.uuid().nullable(),
  root_job: z.uuid(),
  /** Path of the saved flow or script, or of the step inside its flow (`<flow path>/<step id>`); null when inline without one. */
  path: z.string().nullable(),
  /** Hash of the script version a `script` job runs. */
  script_hash: z.string().nullable(),
  /** Module id of a flow step (step jobs), or of the loop/branch whose body this job runs. */
  flow_step_id: z.string().nullable(),
  language: JobLanguageSchema.nullable(),
  /** An inline script's source (`preview`, `flowscript`). */
  raw_code: z.string().nullable(),
  /** The flow value a flow job runs (`flowpreview`, and `flow` as it was when the run started). */
  raw_flow: z.record(z.string(), z.unknown()).nullable(),
  args: z.record(z.string(), z.unknown()),
  status: JobStatusSchema,
  /** Null until the job ends; a failed job's is `{ error: JobError }`. */
  result: z.unknown(),
  /** Set on flow jobs: the spec's FlowStatus, readable at any moment of the run. */
  flow_status: FlowStatusSchema.nullable(),
  /**
   * Set on AI step jobs: the agent's actions so far, live (a parked step's pending
   * `approval_request` or `question` among them); the flow's module status gets them at the end.
   */
  agent_actions: z.array(AgentActionSchema).optional(),
  /** Who started the run (user name or, for a job started by a job, its principal). */
  created_by: z.string(),
  /** The principal the job acts as: `u/<user>`, `g/<group>` or an email. */
  on_behalf_of: z.string(),
  email: z.string(),
  tag: z.string(),
  priority: z.number().nullable(),
  /** True when a failed job's failure was skipped or the job was skipped by `skip_if`. */
  skipped: z.boolean(),
  canceled_by: z.string().nullable(),
  canceled_reason: z.string().nullable(),
  created_at: z.string(),
  /** When a queued job becomes due (sleep, retry delay, debounce). */
  scheduled_for: z.string().nullable(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  duration_ms: z.number().int().nullable(),
  /** The kind of trigger that started the run (Windmill's `trigger_kind`); null for a caller's run. */
  trigger_kind: TriggerKindSchema.nullable().optional(),
  /** The path of that trigger: a schedule's, a route's, the item's own for a webhook. */
  trigger: z.string().nullable().optional(),
});
export type Job = z.infer<typeof JobSchema>;

/** A job in a list: the same without args, result, code and flow value. */
export const JobSummarySchema = JobSchema.omit({
  args: true,
  result: true,
  raw_code: true,
  raw_flow: true,
  flow_status: true,
  agent_actions: true,
}).extend({ success: z.boolean().nullable() });
export type JobSummary = z.infer<typeof JobSummarySchema>;
