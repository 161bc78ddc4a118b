import { uuidV5 } from '../uuid-v5.js';

/** The namespace of schedule ticks' job ids (a fixed random uuid). */
const TICK_NAMESPACE = Buffer.from('3a0d6f52e8c94c1b9b7e2f4a61d0c8e5', 'hex');

/**
 * The job id of a schedule's tick: a uuid v5 (RFC 9562) of the workspace, the schedule's path
 * and the tick's time, so whoever fires the tick, however often, names the same run, and the run
 * use case starts it once.
 */
export function tickJobId(workspace: string, path: string, tick: Date): string {
  return uuidV5(TICK_NAMESPACE, `${workspace}\u0000${path}\u0000${tick.toISOString()}`);
}

/** The job id of a handler run for a scheduled run (`on_failure`, ...): one per run and kind. */
export function handlerJobId(runJobId: string, handler: string): string {
  return uuidV5(TICK_NAMESPACE, `${runJobId}\u0000${handler}`);
}
