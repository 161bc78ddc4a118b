import { loadServiceConfig, startService, type RunningService } from '@flowmesh/bootstrap';
import { testStreamEnv } from '@flowmesh/testing';
import { createLogger } from '@flowmesh/telemetry';
import { resourceRegistryDefinition } from '../../src/resource-registry.definition.js';
import type { RegistryCast } from './registry-cast.js';

export interface RegistryReplica {
  readonly running: RunningService;
  /** Its own HTTP base URL. */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * A second registry on the cast's database and subject prefix, as another replica in a mesh:
 * requests over NATS may reach either, so a test that must know which one answers uses HTTP.
 */
export async function startRegistryReplica(
  cast: RegistryCast,
  env: Record<string, string> = {},
): Promise<RegistryReplica> {
  const config = loadServiceConfig(resourceRegistryDefinition.name, resourceRegistryDefinition.configSchema, {
    NATS_URL: cast.service.config.nats.url,
    DATABASE_URL: cast.service.database.url,
    FLOWMESH_SUBJECT_PREFIX: cast.service.config.subjectPrefix,
    FLOWMESH_ROLE: 'service',
    FLOWMESH_BOOTSTRAP: 'off',
    PORT: '0',
    LOG_LEVEL: process.env.DEBUG_SERVICE === '1' ? 'debug' : 'warn',
    // The cast's streams as it made them: a replica asking for others could not update them.
    ...testStreamEnv(),
    ...env,
  });
  const logger = createLogger({ service: `${config.processName}-replica`, level: config.logLevel });
  const running = await startService(resourceRegistryDefinition, { config, logger });
  return {
    running,
    url: running.url,
    stop: () => running.stop(),
  };
}
