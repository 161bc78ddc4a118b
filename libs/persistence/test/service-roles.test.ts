import { uniqueTestId } from '@flowmesh/testing';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseUrlAs, prepareDatabase, provisionServiceRoles, serviceRoleName } from '../src/index.js';
import {
  AddWidgetColor1700000000001,
  CreateWidgets1700000000000,
  databaseUrlFor,
  dropDatabase,
  queryAdmin,
  recordingLogger,
  Widget,
} from './fixtures.js';

/** Each service its own role, owning its schema only (issue 21), on the real PostgreSQL. */
const database = uniqueTestId('roles');
const roles = ['alpha', 'beta'].map((schema) => ({
  role: serviceRoleName(database, schema),
  password: `pw-${schema}-${database}`,
  schema,
}));
const open: DataSource[] = [];

async function startAs(
  spec: (typeof roles)[number],
  migrations: Array<new () => object>,
): Promise<DataSource> {
  const dataSource = await prepareDatabase({
    databaseUrl: databaseUrlAs(databaseUrlFor(database), spec.role, spec.password),
    schema: spec.schema,
    entities: [Widget],
    migrations,
    logger: recordingLogger(),
  });
  open.push(dataSource);
  return dataSource;
}

async function sqlStateAs(spec: (typeof roles)[number], sql: string): Promise<string | undefined> {
  const client = new pg.Client({
    connectionString: databaseUrlAs(databaseUrlFor(database), spec.role, spec.password),
  });
  await client.connect();
  try {
    await client.query(sql);
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  await Promise.all(open.map((dataSource) => dataSource.destroy()));
  await dropDatabase(database);
  for (const { role } of roles) await queryAdmin(`DROP ROLE IF EXISTS "${role}"`);
});

describe('provisionServiceRoles', () => {
  it('gives each service a plain login role that owns its schema, takes over what an admin made there, and reaches no other schema', async () => {
    // A mesh that ran before roles: the schema and its table belong to the administrator.
    const before = await prepareDatabase({
      databaseUrl: databaseUrlFor(database),
      schema: 'alpha',
      entities: [Widget],
      migrations: [CreateWidgets1700000000000],
      logger: recordingLogger(),
    });
    await before.destroy();

    await provisionServiceRoles(databaseUrlFor(database), roles);
    await provisionServiceRoles(databaseUrlFor(database), roles); // at every start: no error the second time

    const attributes = await queryAdmin<{
      rolname: string;
      rolsuper: boolean;
      rolcreatedb: boolean;
      rolcreaterole: boolean;
    }>(
      'SELECT rolname, rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = ANY($1) ORDER BY rolname',
      [roles.map((r) => r.role)],
    );
    expect(attributes).toEqual(
      roles.map(({ role }) => ({ rolname: role, rolsuper: false, rolcreatedb: false, rolcreaterole: false })),
    );

    // alpha migrates the table the administrator made (it owns it now); beta makes its own.
    const alpha = await startAs(roles[0], [CreateWidgets1700000000000, AddWidgetColor1700000000001]);
    await alpha.query(`INSERT INTO alpha.widget (display_name, color) VALUES ('a', 'red')`);
    const beta = await startAs(roles[1], [CreateWidgets1700000000000]);
    await beta.query(`INSERT INTO beta.widget (display_name) VALUES ('b')`);

    const denied = '42501'; // insufficient_privilege
    expect(await sqlStateAs(roles[1], 'SELECT * FROM alpha.widget')).toBe(denied);
    expect(await sqlStateAs(roles[0], 'SELECT * FROM beta.widget')).toBe(denied);
    expect(await sqlStateAs(roles[0], 'CREATE SCHEMA elsewhere')).toBe(denied);
    expect(await sqlStateAs(roles[0], 'CREATE ROLE intruder')).toBe(denied);
    expect(await sqlStateAs(roles[0], 'SELECT * FROM alpha.widget')).toBeUndefined();
  });
});
