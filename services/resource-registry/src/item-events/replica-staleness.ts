import { FOLDER_ROLES_TTL_MS } from '../folders/folder-roles.cache.js';

/**
 * How long another registry replica may still answer as before a change (ms): its identity cache
 * (`FLOWMESH_AUTH_CACHE_MS`), folder roles and row cache (`FLOWMESH_REGISTRY_READ_CACHE_MS`) keep
 * what they read that long at most (replicas share one configuration). Stamped on every item and
 * identity event as `stale_for_ms`, so a follower caching decisions drops them once more after it.
 */
export const REPLICA_STALE_MS = Symbol.for('flowmesh.registry.replica-stale-ms');

export function replicaStaleMs(authCacheMs: number, readCacheMs: number): number {
  return Math.max(authCacheMs, readCacheMs, FOLDER_ROLES_TTL_MS);
}
