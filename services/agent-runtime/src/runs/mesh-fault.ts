import { MeshError } from '@flowmesh/contracts';

/**
 * SQLSTATE classes of a database that cannot serve right now: connection exceptions (08),
 * insufficient resources (53: "too many clients"), operator intervention (57: a restart).
 */
const DATABASE_UNAVAILABLE = /^(08|53|57)/;

/**
 * A fault of the mesh rather than of the step: a service the step called failed in a way it did
 * not expect (`INTERNAL`: its database was out of connections, a bug), or this service's own
 * database could not be reached or had no room. Such a step is not failed: it runs again from its
 * last turn once its lease runs out (at most FLOWMESH_AGENT_MAX_ATTEMPTS times), as after a crash.
 * Provider outages and refusals (`UNAVAILABLE`, `LIMIT_EXCEEDED`, ...) stay the step's answer.
 */
export function isMeshFault(error: unknown): boolean {
  if (error instanceof MeshError) return error.code === 'INTERNAL';
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && DATABASE_UNAVAILABLE.test(code)) return true;
  // node-postgres's own pool and connection failures carry no SQLSTATE.
  return /timeout exceeded when trying to connect|Connection terminated/i.test(error.message);
}
