import { MigrationExecutor, type DataSource, type QueryRunner } from 'typeorm';
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
  ownerWaitMs = OWNER_WAIT_MS,
): Promise<string[]> {
  const runner = dataSource.createQueryRunner('master');
  try {
    await runner.connect();
    if (!(await mayChange(runner, schema))) {
      await waitForOwner(runner, dataSource, schema, logger, ownerWaitMs);
      return [];
    }
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

/** How long a role that may not migrate waits for the schema's owner to have migrated. */
const OWNER_WAIT_MS = 10 * 60_000;
const OWNER_POLL_MS = 500;

/** Whether this login may create in the schema (or create the schema, when there is none yet). */
async function mayChange(runner: QueryRunner, schema: string): Promise<boolean> {
  const [row] = (await runner.query(
    `SELECT CASE WHEN n.oid IS NULL THEN has_database_privilege(current_database(), 'CREATE')
                 ELSE has_schema_privilege(n.oid, 'CREATE') END AS may
       FROM (SELECT 1) AS one LEFT JOIN pg_namespace n ON n.nspname = $1`,
    [schema],
  )) as Array<{ may: boolean }>;
  return row.may;
}

/**
 * A role of rows only (a service's workers) cannot migrate: it waits until the schema's owner
 * (the service, started beside it) has applied every migration this build knows.
 */
async function waitForOwner(
  runner: QueryRunner,
  dataSource: DataSource,
  schema: string,
  logger: PersistenceLogger,
  waitMs: number,
): Promise<void> {
  const wanted = dataSource.migrations.map((migration) => migration.name || migration.constructor.name);
  const table = `${quoteIdentifier(schema)}.${quoteIdentifier(dataSource.options.migrationsTableName ?? 'migrations')}`;
  const deadline = Date.now() + waitMs;
  let told = false;
  for (;;) {
    const [{ found }] = (await runner.query('SELECT to_regclass($1) IS NOT NULL AS found', [
      table,
    ])) as Array<{
      found: boolean;
    }>;
    const applied = found
      ? new Set(
          ((await runner.query(`SELECT name FROM ${table}`)) as Array<{ name: string }>).map((r) => r.name),
        )
      : new Set<string>();
    const pending = wanted.filter((name) => !applied.has(name));
    if (pending.length === 0) {
      if (told) logger.info({ schema }, 'the schema owner has applied the migrations');
      else logger.info({ schema }, 'schema is up to date');
      return;
    }
    if (Date.now() > deadline)
      throw new Error(
        `this role may not change schema "${schema}", and its owner has not applied ${pending.join(', ')} within ${waitMs / 1000} s: start the service that owns it`,
      );
    if (!told) {
      logger.info(
        { schema, pending },
        `waiting for the owner of schema "${schema}" to apply ${pending.length} migration(s): this role may not`,
      );
      told = true;
    }
    await new Promise((resolve) => setTimeout(resolve, OWNER_POLL_MS));
  }
}
