import { MeshError } from '@flowmesh/contracts';
import { isDatabaseUnavailable } from '@flowmesh/persistence';

/**
 * A fault of the mesh rather than of the step: a service the step called failed in a way it did
 * not expect (`INTERNAL`: its database was out of connections, a bug), or this service's own
 * database could not serve. Such a step is not failed: it runs again from its last turn once its
 * lease runs out (at most FLOWMESH_AGENT_MAX_ATTEMPTS times), as after a crash. Provider outages
 * and refusals (`UNAVAILABLE`, `LIMIT_EXCEEDED`, ...) stay the step's answer.
 */
export function isMeshFault(error: unknown): boolean {
  if (error instanceof MeshError) return error.code === 'INTERNAL';
  return isDatabaseUnavailable(error);
}
