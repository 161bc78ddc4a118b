import { packageVersion, type ServiceDefinition } from '@flowmesh/bootstrap';
import { memoryServiceConfigSchema } from './memory-service.config.js';

/** How memory-service starts: `main.ts` hands this to `bootstrapService`, tests to `startTestService`. */
export const memoryServiceDefinition: ServiceDefinition<typeof memoryServiceConfigSchema> = {
  name: 'memory-service',
  version: packageVersion(import.meta.url),
  configSchema: memoryServiceConfigSchema,
  // Imported on demand, so the module's dependencies load after telemetry has started.
  migrations: async () => (await import('./migrations/index.js')).MEMORY_SERVICE_MIGRATIONS,
  rootModule: async (config, { logger }) =>
    (await import('./memory-service.module.js')).MemoryServiceModule.forRoot(config, logger),
};
