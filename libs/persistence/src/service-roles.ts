import pg from 'pg';
import { assertSchemaName } from './schema-name.js';
import { parseDatabaseUrl, quoteIdentifier } from './database-url.util.js';
import { ensureDatabase } from './ensure-database.js';

/** A login role and its schema: the schema's owner, or (`rowsOnly`) a user of its rows. */
export interface ServiceRoleSpec {
  readonly role: string;
  readonly password: string;
  readonly schema: string;
  /**
   * Reads and writes the rows of the schema's tables, and may not change the schema (no table
   * made, altered or dropped): a service's workers, which run user code beside them.
   */
  readonly rowsOnly?: boolean;
}

/**
 * The role a service logs in as: named for the database and the schema, so two meshes sharing
 * a server (roles are the server's, not a database's) do not share roles. At most 63 bytes.
 */
export function serviceRoleName(database: string, schema: string): string {
  return `${database}_${schema}`
    .replace(/[^A-Za-z0-9_]/g, '_')
    .toLowerCase()
    .slice(0, 63);
}

/** The role of a service's workers: `<database>_<schema>_worker`. */
export function workerRoleName(database: string, schema: string): string {
  return serviceRoleName(database, `${schema}_worker`);
}

/** The same server and database, logging in as `role`. */
export function databaseUrlAs(databaseUrl: string, role: string, password: string): string {
  const url = new URL(databaseUrl);
  url.username = encodeURIComponent(role);
  url.password = encodeURIComponent(password);
  return url.toString();
}

/**
 * Gives each service a role of its own, through an administrator's URL (a superuser, or a role
 * with CREATEROLE that owns the schemas): a login role with no other power (not a superuser,
 * cannot create databases or roles), the owner of its schema and of everything in it (tables a
 * run before roles made as the administrator are handed over), and nobody else's. The database
 * is created when missing. Safe to run at every start: it sets what it finds to what it should be.
 */
export async function provisionServiceRoles(
  adminUrl: string,
  specs: readonly ServiceRoleSpec[],
): Promise<void> {
  const target = parseDatabaseUrl(adminUrl);
  const { database } = target;
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  await ensureDatabase(adminUrl, target, quiet, 10_000);
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    // Owners first: a role of rows is granted what the schema's owner makes.
    const ordered = [...specs.filter((spec) => !spec.rowsOnly), ...specs.filter((spec) => spec.rowsOnly)];
    for (const spec of ordered) {
      assertSchemaName(spec.schema);
      const role = quoteIdentifier(spec.role);
      const schema = quoteIdentifier(spec.schema);
      const password = client.escapeLiteral(spec.password);
      const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [spec.role]);
      const attributes = `LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${password}`;
      await client.query(
        exists.rowCount ? `ALTER ROLE ${role} WITH ${attributes}` : `CREATE ROLE ${role} WITH ${attributes}`,
      );
      await client.query(`GRANT CONNECT ON DATABASE ${quoteIdentifier(database)} TO ${role}`);
      if (spec.rowsOnly) {
        await grantRows(client, spec.schema, spec.role);
        continue;
      }
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema} AUTHORIZATION ${role}`);
      await client.query(`ALTER SCHEMA ${schema} OWNER TO ${role}`);
      await client.query(`REVOKE ALL ON SCHEMA ${schema} FROM PUBLIC`);
      await handOver(client, spec.schema, spec.role);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Tables, views and sequences of the schema that another role made become the owner's. */
async function handOver(client: pg.Client, schema: string, role: string): Promise<void> {
  const owner = quoteIdentifier(role);
  const { rows } = await client.query<{ name: string; kind: string }>(
    `SELECT c.relname AS name, c.relkind AS kind
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
        AND pg_get_userbyid(c.relowner) <> $2
        -- a sequence owned by a column follows its table
        AND NOT (c.relkind = 'S' AND EXISTS (
          SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i')))`,
    [schema, role],
  );
  for (const { name, kind } of rows) {
    const what =
      kind === 'S'
        ? 'SEQUENCE'
        : kind === 'v'
          ? 'VIEW'
          : kind === 'm'
            ? 'MATERIALIZED VIEW'
            : kind === 'f'
              ? 'FOREIGN TABLE'
              : 'TABLE';
    await client.query(`ALTER ${what} ${quoteIdentifier(schema)}.${quoteIdentifier(name)} OWNER TO ${owner}`);
  }
}

/**
 * `role` may read and write the rows of every table of the schema, those its owner makes later
 * too (default privileges), and use its sequences; it may not create anything in it, nor alter
 * or drop what is there (only an owner may).
 */
async function grantRows(client: pg.Client, schemaName: string, roleName: string): Promise<void> {
  const { rows } = await client.query<{ owner: string }>(
    'SELECT pg_get_userbyid(nspowner) AS owner FROM pg_namespace WHERE nspname = $1',
    [schemaName],
  );
  if (rows.length === 0)
    throw new Error(`schema "${schemaName}" does not exist: provision the role that owns it first`);
  const [schema, role, owner] = [schemaName, roleName, rows[0].owner].map(quoteIdentifier);
  await client.query(`REVOKE CREATE ON SCHEMA ${schema} FROM ${role}`);
  await client.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
  await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${role}`);
  await client.query(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA ${schema} TO ${role}`);
  const later = `ALTER DEFAULT PRIVILEGES FOR ROLE ${owner} IN SCHEMA ${schema} GRANT`;
  await client.query(`${later} SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${role}`);
  await client.query(`${later} USAGE, SELECT, UPDATE ON SEQUENCES TO ${role}`);
}
