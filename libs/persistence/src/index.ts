export { createServiceDataSource } from './service-data-source.factory.js';
export { prepareDatabase } from './prepare-database.js';
export { checkDatabase } from './check-database.js';
export { migrateSchema } from './migrate-schema.js';
export { migrationLockKey } from './migration-lock.js';
export {
  databaseUrlAs,
  provisionServiceRoles,
  serviceRoleName,
  workerRoleName,
  type ServiceRoleSpec,
} from './service-roles.js';
export {
  PersistenceModule,
  type PersistenceModuleAsyncOptions,
  type PersistenceModuleOptions,
} from './persistence.module.js';
export type { PersistenceLogger, ServiceDataSourceOptions } from './persistence-options.js';
export { DatabaseUnavailableError } from './database-unavailable.error.js';
export { isDatabaseUnavailable } from './database-fault.js';
export { parseDatabaseUrl, describeTarget, type DatabaseTarget } from './database-url.util.js';
export { SnakeNamingStrategy, snakeCase } from './snake-naming.strategy.js';
export { CreatedAtColumn, UpdatedAtColumn, UuidPrimaryColumn } from './columns.js';
export { rowsOf } from './query-rows.js';
// Re-exported so services inject repositories without depending on @nestjs/typeorm themselves.
export { InjectRepository, InjectDataSource, InjectEntityManager } from '@nestjs/typeorm';
/** The data source class, also the Nest token a service's `DataSource` is injected by. */
export { DataSource } from 'typeorm';
