import { z } from 'zod';
import { defineWork } from '../messaging/contract.js';

/**
 * A job for a flow-orchestrator worker, published on `work.<tag>.job` (the tag routes it to the
 * workers that serve it). Fields a newer orchestrator adds are kept, so an older worker can
 * still dead-letter the job with a reason instead of rejecting its shape.
 */
export const RunJobWorkSchema = z.looseObject({
  jobId: z.string().min(1),
  workspace: z.string().min(1),
});
export type RunJobWork = z.infer<typeof RunJobWorkSchema>;

export const runJobWork = defineWork('job', RunJobWorkSchema);

/** Durable consumer base name of the orchestrator's workers (one consumer per tag). */
export const ORCHESTRATOR_WORKER_DURABLE = 'orchestrator-worker';
