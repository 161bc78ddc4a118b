import type { ServiceName } from '../services/service-names.js';

/**
 * The one HTTP entry point: which service answers which path. `npm start` serves this table on
 * one port, and the Helm chart's Ingress is generated from it (`flowmesh route-table --format helm`),
 * so the two never disagree. In `path`, `*` stands for exactly one path segment (a workspace id);
 * a route matches the path itself and everything below it.
 */
export interface HttpRoute {
  readonly path: string;
  readonly service: ServiceName;
}

const workspaceRoutes = (service: ServiceName, names: readonly string[]): HttpRoute[] =>
  names.map((name) => ({ path: `/api/w/*/${name}`, service }));

export const HTTP_ROUTES: readonly HttpRoute[] = [
  ...workspaceRoutes('resource-registry', [
    'resources',
    'resource_types',
    'variables',
    'scripts',
    'flows',
    'drafts',
    'versions',
    'folders',
    'groups',
    'users',
    'tokens',
    'deploy',
  ]),
  { path: '/api/workspaces', service: 'resource-registry' },
  { path: '/api/auth', service: 'resource-registry' },
  ...workspaceRoutes('flow-orchestrator', [
    'jobs',
    'jobs_u',
    'runs',
    'schedules',
    'http_triggers',
    // Event triggers (Windmill's per-kind APIs): `nats_triggers`, `amqp_triggers`, `mqtt_triggers`, ...
    'nats_triggers',
    'amqp_triggers',
    'mqtt_triggers',
    'websocket_triggers',
    'postgres_triggers',
    'kafka_triggers',
    'workspace_settings',
  ]),
  // User-defined HTTP routes (Windmill's HTTP triggers): `/api/r/<route>` and `/api/r/<workspace>/<route>`.
  { path: '/api/r', service: 'flow-orchestrator' },
  // The MCP server of each workspace (Windmill's URL): `/api/mcp/w/<workspace>/mcp`.
  { path: '/api/mcp', service: 'flow-orchestrator' },
  ...workspaceRoutes('agent-runtime', ['agents']),
  ...workspaceRoutes('llm-gateway', ['ai']),
  { path: '/v1', service: 'llm-gateway' },
  ...workspaceRoutes('memory-service', ['memory', 'ai_memory', 'conversations']),
  ...workspaceRoutes('dependency-locker', ['locks', 'dependencies']),
];

/** Anchored regular expression source for a route path (also used by the Ingress). */
export function routePattern(path: string): string {
  const body = path
    .split('/')
    .map((segment) => (segment === '*' ? '[^/]+' : segment.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return `^${body}(/.*)?$`;
}

const compiled = HTTP_ROUTES.map((route) => ({ route, regex: new RegExp(routePattern(route.path)) }));

/** The route that serves `pathname`, or undefined. */
export function matchHttpRoute(pathname: string): HttpRoute | undefined {
  return compiled.find(({ regex }) => regex.test(pathname))?.route;
}
