import { createLogger } from '@flowmesh/telemetry';
import { DataSource } from 'typeorm';
import { assertSchemaName } from './schema-name.js';
import type { PersistenceLogger, ServiceDataSourceOptions } from './persistence-options.js';
import { parseDatabaseUrl } from './database-url.util.js';
import { SnakeNamingStrategy } from './snake-naming.strategy.js';
import { TypeOrmLoggerAdapter } from './typeorm-logger.adapter.js';

const DEFAULT_POOL_SIZE = 10;
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const SLOW_QUERY_MS = 1_000;

/**
 * A TypeORM data source for one service, not yet initialized (`prepareDatabase` does that).
 * Both TypeORM's `schema` (for entities and the migrations table) and the connection's
 * `search_path` (for raw SQL in migrations) point at the service's schema, so nothing it
 * creates can land in `public`.
 */
export function createServiceDataSource(options: ServiceDataSourceOptions): DataSource {
  assertSchemaName(options.schema);
  parseDatabaseUrl(options.databaseUrl); // fail on a malformed URL here, with a clear message
  const logger = persistenceLogger(options);
  return new DataSource({
    type: 'postgres',
    url: options.databaseUrl,
    schema: options.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    namingStrategy: new SnakeNamingStrategy(),
    applicationName: options.applicationName ?? `flowmesh-${options.schema}`,
    poolSize: options.poolSize ?? DEFAULT_POOL_SIZE,
    connectTimeoutMS: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    // Extensions belong in migrations: creating them at connect needs superuser and races.
    installExtensions: false,
    uuidExtension: 'pgcrypto',
    extra: { options: sessionOptions(options) },
    logging: ['error', 'warn', 'migration'],
    logger: new TypeOrmLoggerAdapter(logger),
    maxQueryExecutionTime: SLOW_QUERY_MS,
    poolErrorHandler: (error: unknown) =>
      logger.warn(
        { error: error instanceof Error ? error.message : String(error) },
        'idle Postgres connection failed',
      ),
  });
}

export function persistenceLogger(
  options: Pick<ServiceDataSourceOptions, 'logger' | 'schema'>,
): PersistenceLogger {
  return options.logger ?? createLogger({ service: options.schema, bindings: { component: 'persistence' } });
}

/** The connection's startup `options`: the service's schema first on `search_path`, and its own settings. */
function sessionOptions(options: Pick<ServiceDataSourceOptions, 'schema' | 'sessionSettings'>): string {
  const settings = { ...options.sessionSettings, search_path: options.schema };
  return Object.entries(settings)
    .map(([name, value]) => {
      if (!/^[a-z_.]+$/.test(name) || !/^[A-Za-z0-9_.,-]+$/.test(value))
        throw new Error(`sessionSettings.${name}: "${value}" is not a plain Postgres setting and value`);
      return `-c ${name}=${value}`;
    })
    .join(' ');
}
