import { packageVersion, type ServiceDefinition } from '@flowmesh/bootstrap';
import { resourceRegistryConfigSchema } from './resource-registry.config.js';

/** How resource-registry starts: `main.ts` hands this to `bootstrapService`, tests to `startTestService`. */
export const resourceRegistryDefinition: ServiceDefinition<typeof resourceRegistryConfigSchema> = {
  name: 'resource-registry',
  version: packageVersion(import.meta.url),
  configSchema: resourceRegistryConfigSchema,
  // Imported on demand, so the module's dependencies load after telemetry has started.
  migrations: async () => (await import('./migrations/index.js')).RESOURCE_REGISTRY_MIGRATIONS,
  rootModule: async (config, { logger }) =>
    (await import('./resource-registry.module.js')).ResourceRegistryModule.forRoot(config, logger),
  // Room for the largest value the registry keeps (escaped as JSON) and the request around it, so
  // an oversized value gets the registry's own error rather than Express's.
  httpBodyLimitBytes: (config) => config.items.maxValueBytes * 2 + 64 * 1024,
};
