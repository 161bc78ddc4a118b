import type { DataSource } from 'typeorm';
import { DatabaseUnavailableError } from './database-unavailable.error.js';
import { parseDatabaseUrl } from './database-url.util.js';
import { assertSchemaName } from './schema-name.js';
import { ensureDatabase } from './ensure-database.js';
import { migrateSchema } from './migrate-schema.js';
import type { ServiceDataSourceOptions } from './persistence-options.js';
import { createServiceDataSource, persistenceLogger } from './service-data-source.factory.js';

const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

/**
 * Everything a service needs before it touches its tables: the database (created if
 * missing), its schema (created if missing), its migrations (run once, under a lock), and an
 * open data source. On failure nothing stays open.
 */
export async function prepareDatabase(options: ServiceDataSourceOptions): Promise<DataSource> {
  assertSchemaName(options.schema); // before anything is created on the server
  const target = parseDatabaseUrl(options.databaseUrl);
  const logger = persistenceLogger(options);
  await ensureDatabase(
    options.databaseUrl,
    target,
    logger,
    options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
  );

  const dataSource = createServiceDataSource({ ...options, logger });
  try {
    await dataSource.initialize();
  } catch (error) {
    throw new DatabaseUnavailableError(target, error);
  }
  try {
    await migrateSchema(dataSource, options.schema, logger);
  } catch (error) {
    await dataSource.destroy().catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`migrating schema "${options.schema}" failed: ${reason}`, { cause: error });
  }
  return dataSource;
}
