import { MeshError } from '@flowmesh/contracts';
import { isNoReply } from '@flowmesh/messaging';
import { isDatabaseUnavailable } from '@flowmesh/persistence';

/**
 * A fault of the mesh rather than of the step: a service the step called failed in a way it did
 * not expect (`INTERNAL`: its database was out of connections, a bug), did not answer at all (no
 * instance, or the one asked died holding the request), or broke a model call off (the gateway
 * instance died or stopped: `MeshInterrupted`); or this service's own database could not serve.
 * Such a step is not failed: it runs again from its last turn once its lease runs out (at most
 * FLOWMESH_AGENT_MAX_ATTEMPTS times), as after a crash, with the answers it had received. Provider
 * outages and refusals (`UNAVAILABLE` answered, `LIMIT_EXCEEDED`, ...) stay the step's answer.
 */
export function isMeshFault(error: unknown): boolean {
  if (error instanceof MeshInterrupted || isNoReply(error)) return true;
  if (error instanceof MeshError) return error.code === 'INTERNAL';
  return isDatabaseUnavailable(error);
}

/** A model call the mesh broke off (see `ProviderError.interrupted`). */
export class MeshInterrupted extends Error {
  override readonly name = 'MeshInterrupted';
}
