import { HTTP_ROUTES, routePattern, SERVICES, type HttpRoute } from '@flowmesh/contracts';
import { stringify } from 'yaml';
import { renderTable } from '../status/status-table.js';

export const ROUTE_FORMATS = ['text', 'json', 'helm'] as const;
export type RouteFormat = (typeof ROUTE_FORMATS)[number];

/** A route as the Ingress needs it: the table entry, its anchored regex and the service's port. */
export interface RouteRow {
  readonly path: string;
  readonly service: string;
  readonly regex: string;
  readonly port: number;
}

export function routeRows(routes: readonly HttpRoute[] = HTTP_ROUTES): RouteRow[] {
  return routes.map((route) => ({
    path: route.path,
    service: route.service,
    regex: routePattern(route.path),
    port: SERVICES[route.service].defaultHttpPort,
  }));
}

/** `text` for people, `json` for scripts, `helm` a values fragment (`routes:` list) for the chart. */
export function renderRoutes(format: RouteFormat, routes: readonly HttpRoute[] = HTTP_ROUTES): string {
  const rows = routeRows(routes);
  switch (format) {
    case 'json':
      return JSON.stringify(rows, null, 2);
    case 'helm':
      return stringify({
        routes: rows.map(({ path, service, regex }) => ({ path, service, regex })),
      }).trimEnd();
    case 'text':
      return renderTable(
        ['PATH', 'SERVICE', 'PORT'],
        rows.map((row) => [row.path, row.service, String(row.port)]),
      );
  }
}
