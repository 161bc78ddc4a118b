import type { ServiceName } from './service-names.js';

/**
 * The PostgreSQL schema each service owns (no service reads another's). Named once here, so
 * whoever provisions the database (`flowmesh start`, an operator) gives each service a role that
 * owns its schema and reaches nothing else.
 */
export const SERVICE_SCHEMAS: Readonly<Record<ServiceName, string>> = {
  'flow-orchestrator': 'orchestrator',
  'agent-runtime': 'agent_runtime',
  'llm-gateway': 'llm_gateway',
  'memory-service': 'memory',
  'resource-registry': 'registry',
  'dependency-locker': 'dependency_locker',
};
