/** The parts of a `postgres://` URL our errors and set-up need; never the password. */
export interface DatabaseTarget {
  host: string;
  port: number;
  database: string;
  user: string;
}

const MAINTENANCE_DATABASE = 'postgres';

export function parseDatabaseUrl(databaseUrl: string): DatabaseTarget {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new Error('DATABASE_URL is not a URL (expected postgres://user:password@host:5432/database)');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new Error(`DATABASE_URL must start with postgres:// (got ${url.protocol}//)`);
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  return {
    host: url.hostname || 'localhost',
    port: Number(url.port || 5432),
    database: database || MAINTENANCE_DATABASE,
    user: decodeURIComponent(url.username) || 'postgres',
  };
}

/** `host:port/database as user`, for messages a person reads. */
export function describeTarget(target: DatabaseTarget): string {
  return `${target.host}:${target.port}/${target.database} as ${target.user}`;
}

/** The same server and credentials, pointed at the `postgres` maintenance database. */
export function maintenanceUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${MAINTENANCE_DATABASE}`;
  return url.toString();
}

/** A Postgres identifier in double quotes, safe for names we do not control. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
