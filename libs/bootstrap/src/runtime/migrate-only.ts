import { SERVICE_SCHEMAS } from '@flowmesh/contracts';
import { prepareDatabase } from '@flowmesh/persistence';
import type { Logger } from '@flowmesh/telemetry';
import { z } from 'zod';
import { CONFIG_DEFAULTS } from '../config/common-config.schema.js';
import { loadConfig } from '../config/load-config.js';
import { postgresUrl } from '../config/setting.schemas.js';
import type { OwnConfigSchema } from '../config/service-config.js';
import type { ServiceDefinition } from './service-definition.js';

/** `node main.js --migrate-only`: what the chart's pre-install/pre-upgrade migrations Job runs. */
export const MIGRATE_ONLY_FLAG = '--migrate-only';

const migrateSettingsSchema = z.object({
  DATABASE_URL: postgresUrl().default(CONFIG_DEFAULTS.databaseUrl),
});

/**
 * Applies the service's migrations to its schema (creating database and schema when missing,
 * under the schema's advisory lock, as a start would) and returns: nothing else of the service
 * starts, so only DATABASE_URL is read (a wrong one: ConfigError). Run as the service's own role, the tables stay its own.
 */
export async function migrateOnly<S extends OwnConfigSchema>(
  definition: ServiceDefinition<S>,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<void> {
  if (!definition.migrations) throw new Error(`${definition.name} has no migrations to apply`);
  const settings = loadConfig(migrateSettingsSchema, env);
  const dataSource = await prepareDatabase({
    databaseUrl: settings.DATABASE_URL,
    schema: SERVICE_SCHEMAS[definition.name],
    entities: [],
    migrations: await definition.migrations(),
    poolSize: 1,
    connectTimeoutMs: 30_000,
    logger,
  });
  await dataSource.destroy();
}
