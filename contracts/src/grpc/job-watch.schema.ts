import { z } from 'zod';
import { AgentStreamEnvelopeSchema } from '../orchestrator/agent-stream.schema.js';
import { JobStatusSchema } from '../orchestrator/job.schema.js';
import { FLOW_STATUS_MODULE_STATES } from '../openflow/flow-status.schema.js';

/**
 * `flowmesh.v1.Jobs/WatchJob` (gRPC only): a run's events from the start or after an offset the
 * client received before. Offsets are opaque to clients (see `job-watch-offset.ts`).
 */
export const WatchJobRequestSchema = z
  .object({
    workspace: z.string().min(1),
    id: z.uuid(),
    after: z.string().max(4096).default(''),
  })
  .strict();
export type WatchJobRequest = z.infer<typeof WatchJobRequestSchema>;

/** A top-level step of the flow changed state: its module id, position and state, and its job. */
export const StepEventSchema = z.object({
  step_id: z.string(),
  index: z.int().nonnegative(),
  state: z.enum(FLOW_STATUS_MODULE_STATES),
  job: z.uuid().optional(),
});
export type StepEvent = z.infer<typeof StepEventSchema>;

/** The run ended. */
export const JobEndSchema = z.object({ status: JobStatusSchema, success: z.boolean().optional() });
export type JobEnd = z.infer<typeof JobEndSchema>;

/** One event of the watch: exactly one of the four, and where the stream stood after it. */
export const JobWatchEventSchema = z
  .object({
    offset: z.string(),
    step_started: StepEventSchema.optional(),
    step_finished: StepEventSchema.optional(),
    agent: AgentStreamEnvelopeSchema.optional(),
    end: JobEndSchema.optional(),
  })
  .refine(
    (event) =>
      [event.step_started, event.step_finished, event.agent, event.end].filter((part) => part !== undefined)
        .length === 1,
    { message: 'must hold exactly one of step_started, step_finished, agent and end' },
  );
export type JobWatchEvent = z.infer<typeof JobWatchEventSchema>;
