import { isItemPath, MeshError } from '@flowmesh/contracts';

/**
 * `resources/history/{path}` lists and `resources/history/{path}/{version}` shows, and a path may
 * hold any number of `/`. The last segment is read as a version when it is a number and what
 * precedes it is a whole item path; so the history of a resource whose name ends in a numeric
 * segment (`u/me/reports/2024`) is listed with `resources/history_list/{path}`.
 */
export function splitHistoryRoute(segments: string | readonly string[]): { path: string; version?: number } {
  const parts = typeof segments === 'string' ? segments.split('/') : [...segments];
  const last = parts.at(-1);
  const head = parts.slice(0, -1).join('/');
  if (last !== undefined && /^[0-9]+$/.test(last) && isItemPath(head))
    return { path: head, version: Number(last) };
  return { path: parts.join('/') };
}

/** `resources/history_restore/{path}/{version}`: the version is required. */
export function requireVersionedRoute(segments: string | readonly string[]): {
  path: string;
  version: number;
} {
  const route = splitHistoryRoute(segments);
  if (route.version === undefined) {
    throw new MeshError(
      'VALIDATION_FAILED',
      `version: the route must end in /<path>/<version number>, got "${route.path}"`,
    );
  }
  return { path: route.path, version: route.version };
}
