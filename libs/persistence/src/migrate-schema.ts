import { MigrationExecutor, type DataSource } from 'typeorm';
import { migrationLockKey, withAdvisoryLock } from './migration-lock.js';
import type { PersistenceLogger } from './persistence-options.js';
import { quoteIdentifier } from './database-url.util.js';

/**
 * Creates the schema if missing and applies pending migrations, all on one connection that
 * holds the schema's advisory lock: concurrent replicas run them exactly once, one after the
 * other, and the second finds nothing to do. Returns the names of the migrations it ran.
 */
export async function migrateSchema(
  dataSource: DataSource,
  schema: string,
  logger: PersistenceLogger,
): Promise<string[]> {
  const runner = dataSource.createQueryRunner('master');
  try {
    await runner.connect();
    return await withAdvisoryLock(runner, migrationLockKey(schema), async () => {
      // Looked up first: a service role owning its schema may not create schemas (and Postgres
      // checks that before IF NOT EXISTS).
      const found = (await runner.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [
        schema,
      ])) as unknown[];
      if (found.length === 0) await runner.query(`CREATE SCHEMA ${quoteIdentifier(schema)}`);
      const executor = new MigrationExecutor(dataSource, runner);
      executor.transaction = 'each';
      const applied = await executor.executePendingMigrations();
      const names = applied.map((migration) => migration.name);
      if (names.length > 0)
        logger.info({ schema, migrations: names }, `applied ${names.length} migration(s)`);
      else logger.info({ schema }, 'schema is up to date');
      return names;
    });
  } finally {
    await runner.release();
  }
}
