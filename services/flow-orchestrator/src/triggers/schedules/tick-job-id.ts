import { createHash } from 'node:crypto';

/** The namespace of schedule ticks' job ids (a fixed random uuid). */
const TICK_NAMESPACE = Buffer.from('3a0d6f52e8c94c1b9b7e2f4a61d0c8e5', 'hex');

/**
 * The job id of a schedule's tick: a uuid v5 (RFC 9562) of the workspace, the schedule's path
 * and the tick's time, so whoever fires the tick, however often, names the same run, and the run
 * use case starts it once.
 */
export function tickJobId(workspace: string, path: string, tick: Date): string {
  return uuidV5(`${workspace}\u0000${path}\u0000${tick.toISOString()}`);
}

/** The job id of a handler run for a scheduled run (`on_failure`, ...): one per run and kind. */
export function handlerJobId(runJobId: string, handler: string): string {
  return uuidV5(`${runJobId}\u0000${handler}`);
}

function uuidV5(name: string): string {
  const hash = createHash('sha1').update(TICK_NAMESPACE).update(name, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
