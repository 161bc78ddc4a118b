import { randomUUID } from 'node:crypto';
import { derivedJobId } from '@flowmesh/contracts';
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
  return derivedJobId('flowmesh-step', run.id, slot, run.status.retry?.fail_count ?? 0);
}
