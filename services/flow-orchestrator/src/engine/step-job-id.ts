import { createHash, randomUUID } from 'node:crypto';
import type { FlowRun } from './flow-run.js';
import type { ModuleSlot } from './module-outcome.js';

/**
 * The id of the job that module `slot` of `run` runs as, for this attempt: derived from the flow
 * job's id, the slot and the attempt (`retry.fail_count`), so a step that runs again after its
 * worker died, before anything of it was written, runs under the same id (`WM_JOB_ID`), the key
 * a step with side effects can make them idempotent with. Each retry is a new attempt and a new
 * id. A squashed loop body (in memory, never written) takes a random one.
 */
export function stepJobId(run: FlowRun, slot: ModuleSlot): string {
  if (run.ephemeral) return randomUUID();
  const attempt = run.status.retry?.fail_count ?? 0;
  const bytes = createHash('sha256')
    .update(`flowmesh-step\u0000${run.id}\u0000${slot}\u0000${attempt}`)
    .digest();
  // An RFC 9562 UUID, version 8 (custom), variant 10.
  bytes[6] = (bytes[6] & 0x0f) | 0x80;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
