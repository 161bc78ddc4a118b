import { packageVersion, type ServiceDefinition } from '@flowmesh/bootstrap';
import { agentRuntimeConfigSchema } from './agent-runtime.config.js';

/** How agent-runtime starts: `main.ts` hands this to `bootstrapService`, tests to `startTestService`. */
export const agentRuntimeDefinition: ServiceDefinition<typeof agentRuntimeConfigSchema> = {
  name: 'agent-runtime',
  version: packageVersion(import.meta.url),
  configSchema: agentRuntimeConfigSchema,
  // Imported on demand, so the module's dependencies load after telemetry has started.
  migrations: async () => (await import('./migrations/index.js')).AGENT_RUNTIME_MIGRATIONS,
  rootModule: async (config, { logger }) =>
    (await import('./agent-runtime.module.js')).AgentRuntimeModule.forRoot(config, logger),
};
