import { z } from 'zod';
import { FlowStatusSchema } from '../openflow/flow-status.schema.js';
import { JobStatusSchema } from '../orchestrator/job.schema.js';

/**
 * Answers of the orchestrator's HTTP run API (`/api/w/:workspace/jobs...`, Windmill's shapes) that
 * the CLI reads: the service answers these types and the CLI parses with these schemas.
 */

/** `GET jobs_u/completed/get_result_maybe/{id}`: `completed` false while the job runs. */
export const JobResultMaybeSchema = z.object({
  completed: z.boolean(),
  started: z.boolean(),
  success: z.boolean().optional(),
  result: z.unknown(),
});
export type JobResultMaybe = z.infer<typeof JobResultMaybeSchema>;

/** `GET jobs_u/getupdate/{id}?log_offset=`: where the job is, and the logs written since the offset. */
export const JobUpdateSchema = z.object({
  running: z.boolean(),
  completed: z.boolean(),
  new_logs: z.string(),
  log_offset: z.int(),
  flow_status: FlowStatusSchema.nullable(),
});
export type JobUpdate = z.infer<typeof JobUpdateSchema>;

/** The `end` event of `GET jobs_u/stream/{id}`: how the run ended (`success` null when it did not say). */
export const JobStreamEndSchema = z.object({
  status: JobStatusSchema,
  success: z.boolean().nullable(),
});
export type JobStreamEnd = z.infer<typeof JobStreamEndSchema>;

/** The `error` event of `GET jobs_u/stream/{id}`: the stream stopped before the run's end. */
export const JobStreamErrorSchema = z.object({ message: z.string() });
export type JobStreamError = z.infer<typeof JobStreamErrorSchema>;
