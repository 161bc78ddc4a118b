/**
 * Writes helm/flowmesh/files/routes.json from the one route table in `@flowmesh/contracts`, so
 * the chart's Ingress routes exactly the paths that `npm start` serves locally.
 *
 *   npm run routes:sync     (builds contracts, then runs this file with Node's type stripping)
 *
 * helm/test/routes.test.ts fails when the checked-in file differs from what this produces.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { HTTP_ROUTES, type HttpRoute, routePattern } from '@flowmesh/contracts';

export const ROUTES_FILE = fileURLToPath(new URL('../flowmesh/files/routes.json', import.meta.url));

export interface IngressRoute {
  /** The route as written in the table (`*` is one path segment). */
  readonly path: string;
  readonly service: string;
  /** Anchored regular expression matching the path and everything below it. */
  readonly regex: string;
}

export function ingressRoutes(routes: readonly HttpRoute[] = HTTP_ROUTES): IngressRoute[] {
  return routes.map((route) => ({
    path: route.path,
    service: route.service,
    regex: routePattern(route.path),
  }));
}

/** The file's exact text: stable key order, two-space indent, trailing newline. */
export function renderRoutesFile(routes: readonly HttpRoute[] = HTTP_ROUTES): string {
  const body = {
    $comment: 'Generated from HTTP_ROUTES in @flowmesh/contracts by `npm run routes:sync`; do not edit.',
    routes: ingressRoutes(routes),
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}

if (import.meta.main) {
  writeFileSync(ROUTES_FILE, renderRoutesFile());
  console.log(`wrote ${HTTP_ROUTES.length} routes to ${ROUTES_FILE}`);
}
