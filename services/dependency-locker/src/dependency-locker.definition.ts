import { packageVersion, type ServiceDefinition } from '@flowmesh/bootstrap';
import { dependencyLockerConfigSchema } from './dependency-locker.config.js';

/** How dependency-locker starts: `main.ts` hands this to `bootstrapService`, tests to `startTestService`. */
export const dependencyLockerDefinition: ServiceDefinition<typeof dependencyLockerConfigSchema> = {
  name: 'dependency-locker',
  version: packageVersion(import.meta.url),
  configSchema: dependencyLockerConfigSchema,
  // Imported on demand, so the module's dependencies load after telemetry has started.
  migrations: async () => (await import('./migrations/index.js')).DEPENDENCY_LOCKER_MIGRATIONS,
  rootModule: async (config, { logger }) =>
    (await import('./dependency-locker.module.js')).DependencyLockerModule.forRoot(config, logger),
};
