import pg from 'pg';
import { DatabaseUnavailableError } from './database-unavailable.error.js';
import { maintenanceUrl, quoteIdentifier, type DatabaseTarget } from './database-url.util.js';
import type { PersistenceLogger } from './persistence-options.js';

const DATABASE_MISSING = '3D000';
const ALREADY_CREATED = new Set(['42P04', '23505']); // duplicate_database; unique race on pg_database

/**
 * Creates the database named in the URL when it does not exist yet. Connects to the target
 * first, so a deployment that already has its database needs no access to `postgres`.
 */
export async function ensureDatabase(
  databaseUrl: string,
  target: DatabaseTarget,
  logger: PersistenceLogger,
  connectTimeoutMs: number,
): Promise<void> {
  const probe = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: connectTimeoutMs });
  try {
    await probe.connect();
    return;
  } catch (error) {
    if (sqlState(error) !== DATABASE_MISSING) throw new DatabaseUnavailableError(target, error);
  } finally {
    await probe.end().catch(() => undefined);
  }

  const admin = new pg.Client({
    connectionString: maintenanceUrl(databaseUrl),
    connectionTimeoutMillis: connectTimeoutMs,
  });
  try {
    await admin.connect();
  } catch (error) {
    await admin.end().catch(() => undefined);
    throw new DatabaseUnavailableError(
      target,
      error,
      `database is missing and cannot be created through "postgres"`,
    );
  }
  try {
    await admin.query(`CREATE DATABASE ${quoteIdentifier(target.database)}`);
    logger.info({ database: target.database }, 'created database');
  } catch (error) {
    // Another replica created it between our probe and our CREATE: that is success.
    if (!ALREADY_CREATED.has(sqlState(error) ?? '')) {
      throw new DatabaseUnavailableError(target, error, 'cannot create the database');
    }
  } finally {
    await admin.end().catch(() => undefined);
  }
}

function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
