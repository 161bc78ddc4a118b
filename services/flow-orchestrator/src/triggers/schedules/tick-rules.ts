import { isTerminalJobStatus, type JobStatus } from '@flowmesh/contracts';

/** The schedule's previous run, as recorded (`schedule_run`). */
export interface PreviousRun {
  readonly completed_at: Date | null;
  readonly started: boolean;
}

/** That run's job, where it exists yet. */
export interface PreviousJob {
  readonly status: JobStatus;
  readonly started_at: Date | null;
}

/**
 * Whether a tick gives way to the schedule's previous run (and passes without a run):
 * - with `no_flow_overlap`, while that run has not ended (Windmill skips the tick);
 * - for a late tick (the mesh was down across it), when that run has not started or started
 *   after this tick was due: it is the one late run after the gap, as in Windmill, where the
 *   job queued for the first missed tick runs late and queues the next tick after now.
 * A recorded run whose job does not exist yet is about to start (a replica died between the claim
 * and the start, and another one will start it): this tick waits for it too.
 */
export function givesWay(
  tick: { readonly noFlowOverlap: boolean; readonly tick: Date; readonly late: boolean },
  previous: PreviousRun,
  job: PreviousJob | undefined,
): boolean {
  if (!job) return previous.completed_at === null && !previous.started;
  const ended = isTerminalJobStatus(job.status);
  if (tick.noFlowOverlap && !ended) return true;
  if (!tick.late) return false;
  if (job.started_at !== null) return job.started_at > tick.tick;
  return !ended;
}
