import type { DataSourceOptions } from 'typeorm';

/** The subset of a pino logger persistence writes to; any pino `Logger` fits. */
export interface PersistenceLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface ServiceDataSourceOptions {
  /** `postgres://user:password@host:5432/database`; the database is created if missing. */
  databaseUrl: string;
  /** The service's own schema: its tables and its `migrations` table live here, never in `public`. */
  schema: string;
  entities: NonNullable<DataSourceOptions['entities']>;
  migrations: NonNullable<DataSourceOptions['migrations']>;
  /** Shown in `pg_stat_activity`; defaults to `flowmesh-<schema>`. */
  applicationName?: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** How long to wait for a connection before failing (default 5000 ms). */
  connectTimeoutMs?: number;
  /** Where migration progress and pool errors go (default: a JSON logger named after the schema). */
  logger?: PersistenceLogger;
  /** Settings of every connection (`plan_cache_mode: 'force_generic_plan'`), set when it opens. */
  sessionSettings?: Readonly<Record<string, string>>;
}
