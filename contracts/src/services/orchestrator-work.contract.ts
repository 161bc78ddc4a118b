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
  /**
   * A hint: the job runs a script (it is no flow and no AI step), so the worker takes its lease
   * at once instead of first trying it as a flow. The row decides: a wrong hint costs only the
   * usual path.
   */
  script: z.boolean().optional(),
});
export type RunJobWork = z.infer<typeof RunJobWorkSchema>;

export const runJobWork = defineWork('job', RunJobWorkSchema);

/**
 * A job with a `priority` above 0, published on `work.<tag>.priority`: workers take this lane on
 * slots of its own, so such a job never waits behind the tag's backlog of `work.<tag>.job`.
 */
export const runPriorityJobWork = defineWork('priority', RunJobWorkSchema);

/** The lane of a job of this priority. */
export function runJobWorkFor(priority: number | null | undefined): typeof runJobWork {
  return (priority ?? 0) > 0 ? runPriorityJobWork : runJobWork;
}

/** Durable consumer base name of the orchestrator's workers (one consumer per tag). */
export const ORCHESTRATOR_WORKER_DURABLE = 'orchestrator-worker';
/** The same for the priority lane. */
export const ORCHESTRATOR_PRIORITY_DURABLE = 'orchestrator-priority';
