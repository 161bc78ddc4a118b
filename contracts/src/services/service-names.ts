/**
 * The six services of the mesh. `subjectRoot` is the token that starts every request subject
 * a service answers (`registry.resource.get`), so a subject says who answers it.
 * `defaultHttpPort` is the port the service listens on when started locally by `npm start`.
 */
export const SERVICES = {
  'flow-orchestrator': { subjectRoot: 'orchestrator', defaultHttpPort: 8101 },
  'agent-runtime': { subjectRoot: 'agent', defaultHttpPort: 8102 },
  'llm-gateway': { subjectRoot: 'gateway', defaultHttpPort: 8103 },
  'memory-service': { subjectRoot: 'memory', defaultHttpPort: 8104 },
  'resource-registry': { subjectRoot: 'registry', defaultHttpPort: 8105 },
  'dependency-locker': { subjectRoot: 'locker', defaultHttpPort: 8106 },
} as const;

export type ServiceName = keyof typeof SERVICES;

export const SERVICE_NAMES = Object.keys(SERVICES) as ServiceName[];

export function isServiceName(value: string): value is ServiceName {
  return Object.hasOwn(SERVICES, value);
}
