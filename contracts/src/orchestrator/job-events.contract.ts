import { z } from 'zod';
import { FaultClassSchema } from '../ai/fault.js';
import { defineEvent } from '../messaging/contract.js';
import { JobKindSchema, JobStatusSchema } from './job.schema.js';

/**
 * Facts about jobs on the events stream. `started` and `completed` are published for jobs
 * without a parent (a run) through the outbox, in the transaction that changed the job;
 * `step_completed` and `suspended` for each step of a flow run. They carry ids and outcomes, not
 * results: a reader fetches a result with `orchestrator.job.get_result` (results can be large
 * and are readable only with permission).
 */
const jobRef = {
  job_id: z.uuid(),
  workspace: z.string(),
  root_job: z.uuid(),
  parent_job: z.uuid().nullable(),
};

export const JobStartedEventSchema = z.object({
  ...jobRef,
  kind: JobKindSchema,
  path: z.string().nullable(),
  tag: z.string(),
  started_at: z.string(),
});
export type JobStartedEvent = z.infer<typeof JobStartedEventSchema>;

export const JobStepCompletedEventSchema = z.object({
  ...jobRef,
  /** The module id of the step inside the flow job `job_id`. */
  step_id: z.string(),
  /** The job that ran the step (absent for a step that runs no job: skipped, identity). */
  step_job: z.uuid().optional(),
  success: z.boolean(),
  skipped: z.boolean(),
  /** A failed step whose error says whose fault it is (agent and decision steps): `user` or `internal`. */
  fault: FaultClassSchema.optional(),
  duration_ms: z.number().int(),
  completed_at: z.string(),
});
export type JobStepCompletedEvent = z.infer<typeof JobStepCompletedEventSchema>;

export const JobSuspendedEventSchema = z.object({
  ...jobRef,
  step_id: z.string(),
  /** Approvals still needed. */
  required_events: z.number().int(),
  /** When the approval times out (ISO), if it does. */
  timeout_at: z.string().nullable(),
});
export type JobSuspendedEvent = z.infer<typeof JobSuspendedEventSchema>;

export const JobCompletedEventSchema = z.object({
  ...jobRef,
  kind: JobKindSchema,
  path: z.string().nullable(),
  status: JobStatusSchema,
  success: z.boolean(),
  /** A failed run whose error says whose fault it is (its failing agent or decision step's). */
  fault: FaultClassSchema.optional(),
  duration_ms: z.number().int().nullable(),
  completed_at: z.string(),
});
export type JobCompletedEvent = z.infer<typeof JobCompletedEventSchema>;

/** A flow's `early_return` produced the result a synchronous caller gets; the flow keeps running. */
export const JobEarlyReturnedEventSchema = z.object({
  ...jobRef,
  step_id: z.string().nullable(),
  at: z.string(),
});
export type JobEarlyReturnedEvent = z.infer<typeof JobEarlyReturnedEventSchema>;

/** A job (and the jobs below it) was asked to stop: workers running any of its scripts abort them. */
export const JobCancelRequestedEventSchema = z.object({
  ...jobRef,
  by: z.string(),
  reason: z.string().nullable(),
  /** The AI steps (`aiagent`, `aidecision`) this cancel ended: agent-runtime stops their runs. */
  agent_steps: z.array(z.uuid()).optional(),
});
export type JobCancelRequestedEvent = z.infer<typeof JobCancelRequestedEventSchema>;

export const jobEvents = {
  started: defineEvent('evt.job.started', JobStartedEventSchema),
  stepCompleted: defineEvent('evt.job.step_completed', JobStepCompletedEventSchema),
  suspended: defineEvent('evt.job.suspended', JobSuspendedEventSchema),
  completed: defineEvent('evt.job.completed', JobCompletedEventSchema),
  earlyReturned: defineEvent('evt.job.early_returned', JobEarlyReturnedEventSchema),
  cancelRequested: defineEvent('evt.job.cancel_requested', JobCancelRequestedEventSchema),
} as const;
