import { uniqueTestId, waitFor } from '@flowmesh/testing';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { afterAll, describe, expect, it } from 'vitest';
import {
  databaseUrlAs,
  prepareDatabase,
  provisionServiceRoles,
  serviceRoleName,
  workerRoleName,
} from '../src/index.js';
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
/** The workers of each: rows of the schema only. */
const workers = roles.map(({ schema }) => ({
  role: workerRoleName(database, schema),
  password: `pw-${schema}-worker-${database}`,
  schema,
  rowsOnly: true,
}));
const open: DataSource[] = [];

type RoleSpec = { role: string; password: string; schema: string };

async function startAs(
  spec: RoleSpec,
  migrations: Array<new () => object>,
  logger = recordingLogger(),
): Promise<DataSource> {
  const dataSource = await prepareDatabase({
    databaseUrl: databaseUrlAs(databaseUrlFor(database), spec.role, spec.password),
    schema: spec.schema,
    entities: [Widget],
    migrations,
    logger,
  });
  open.push(dataSource);
  return dataSource;
}

async function sqlStateAs(spec: RoleSpec, sql: string): Promise<string | undefined> {
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
  for (const { role } of [...workers, ...roles]) {
    await queryAdmin(`DROP OWNED BY "${role}"`).catch(() => undefined);
    await queryAdmin(`DROP ROLE IF EXISTS "${role}"`);
  }
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

  it("gives a service's workers its rows and nothing more: no table made, altered or dropped; tables made later included", async () => {
    await provisionServiceRoles(databaseUrlFor(database), [...workers, ...roles]);
    await provisionServiceRoles(databaseUrlFor(database), [...workers, ...roles]);
    const worker = await startAs(workers[0], [CreateWidgets1700000000000, AddWidgetColor1700000000001]);
    await worker.query(`INSERT INTO alpha.widget (display_name, color) VALUES ('w', 'blue')`);
    await worker.query(`UPDATE alpha.widget SET color = 'green' WHERE display_name = 'w'`);
    expect(await worker.query(`SELECT color FROM alpha.widget WHERE display_name = 'w'`)).toEqual([
      { color: 'green' },
    ]);
    await worker.query(`DELETE FROM alpha.widget WHERE display_name = 'w'`);

    const denied = '42501'; // insufficient_privilege (must be owner: the same code)
    expect(await sqlStateAs(workers[0], 'CREATE TABLE alpha.intruder (id int)')).toBe(denied);
    expect(await sqlStateAs(workers[0], 'ALTER TABLE alpha.widget ADD COLUMN x int')).toBe(denied);
    expect(await sqlStateAs(workers[0], 'DROP TABLE alpha.widget')).toBe(denied);
    expect(await sqlStateAs(workers[0], 'TRUNCATE alpha.widget')).toBe(denied);
    expect(await sqlStateAs(workers[0], 'SELECT * FROM beta.widget')).toBe(denied);
    expect(await sqlStateAs(workers[0], 'CREATE SCHEMA elsewhere')).toBe(denied);

    // A table the owner makes after the grants is the workers' to use too.
    expect(await sqlStateAs(roles[0], 'CREATE TABLE alpha.later (id int)')).toBeUndefined();
    expect(await sqlStateAs(workers[0], 'INSERT INTO alpha.later VALUES (1)')).toBeUndefined();
  });

  it('a worker that may not migrate waits for the owner to apply what it knows, then starts', async () => {
    // beta's owner applied only the first migration; its worker knows two.
    const logger = recordingLogger();
    let started = false;
    const starting = startAs(
      workers[1],
      [CreateWidgets1700000000000, AddWidgetColor1700000000001],
      logger,
    ).then((dataSource) => {
      started = true;
      return dataSource;
    });
    await waitFor(() => logger.entries.some((entry) => entry.message.includes('waiting for the owner')), {
      timeoutMs: 20_000,
      description: 'the worker to wait for the owner',
    });
    expect(started).toBe(false);
    await startAs(roles[1], [CreateWidgets1700000000000, AddWidgetColor1700000000001]);
    const worker = await starting;
    await worker.query(`INSERT INTO beta.widget (display_name, color) VALUES ('w', 'red')`);
    expect(logger.entries.map((entry) => entry.message)).toContain(
      'the schema owner has applied the migrations',
    );
  });
});
