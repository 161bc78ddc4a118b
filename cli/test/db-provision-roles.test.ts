import { MESH_PROCESSES, SERVICE_NAMES, SERVICE_SCHEMAS, type MeshProcess } from '@flowmesh/contracts';
import { serviceRoleName, workerRoleName } from '@flowmesh/persistence';
import { runFlowmesh, withTestDatabase } from '@flowmesh/testing';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localDatabaseRoles } from '../src/mesh/local-database-roles.js';
import { provisionRolesFromEnv } from '../src/db/provision-roles.js';
import { rolePasswordVariable } from '../src/db/role-passwords.js';

/** `flowmesh db provision-roles` on the real PostgreSQL, as the Helm chart's hook Job runs it. */
const database = withTestDatabase('dbroles');
const passwords = Object.fromEntries(
  MESH_PROCESSES.map(({ name }) => [rolePasswordVariable(name), `pw-${name}-${database.name}`]),
);

/** The role each process logs in as: a service's owns its schema, a worker's has its rows. */
function roleOf(meshProcess: MeshProcess): string {
  const schema = SERVICE_SCHEMAS[meshProcess.service];
  return meshProcess.role === 'worker'
    ? workerRoleName(database.name, schema)
    : serviceRoleName(database.name, schema);
}
const env = { DATABASE_URL: database.url, ...passwords };

afterAll(() => database.drop());

async function queryAdmin<T extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

describe('flowmesh db provision-roles', () => {
  it('makes a login role per service that owns its schema, and per worker, and says so', async () => {
    const result = await runFlowmesh(['db', 'provision-roles', '--expect-endpoint', database.url], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const expected = MESH_PROCESSES.map(roleOf);
    expect(
      result.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(':')[0]),
    ).toEqual(expected);
    for (const password of Object.values(passwords)) expect(result.stdout).not.toContain(password);

    const roles = await queryAdmin<Record<string, unknown>>(
      `SELECT rolname, rolcanlogin, rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls
         FROM pg_roles WHERE rolname = ANY($1) ORDER BY rolname`,
      [expected],
    );
    expect(roles).toHaveLength(MESH_PROCESSES.length);
    for (const role of roles) {
      expect(role).toMatchObject({
        rolcanlogin: true,
        rolsuper: false,
        rolcreatedb: false,
        rolcreaterole: false,
        rolreplication: false,
        rolbypassrls: false,
      });
    }
    const owners = await queryAdmin<{ schema: string; owner: string }>(
      `SELECT nspname AS schema, pg_get_userbyid(nspowner) AS owner FROM pg_namespace WHERE nspname = ANY($1)`,
      [Object.values(SERVICE_SCHEMAS)],
    );
    expect(Object.fromEntries(owners.map((o) => [o.schema, o.owner]))).toEqual(
      Object.fromEntries(
        SERVICE_NAMES.map((s) => [SERVICE_SCHEMAS[s], serviceRoleName(database.name, SERVICE_SCHEMAS[s])]),
      ),
    );
    // The worker's role reaches the orchestrator's rows, and may not change its schema.
    expect(result.stdout).toContain(
      `${workerRoleName(database.name, 'orchestrator')}: login role of flow-orchestrator-worker, rows of schema orchestrator`,
    );
    const [usage] = await queryAdmin<{ usage: boolean; create: boolean }>(
      `SELECT has_schema_privilege($1, 'orchestrator', 'USAGE') AS usage,
              has_schema_privilege($1, 'orchestrator', 'CREATE') AS create`,
      [workerRoleName(database.name, 'orchestrator')],
    );
    expect(usage).toEqual({ usage: true, create: false });
  });

  it('is idempotent, and a second run with a new password resets it', async () => {
    const first = await provisionRolesFromEnv(env);
    const changed = { ...env, [rolePasswordVariable('llm-gateway')]: `new-${database.name}` };
    expect(await provisionRolesFromEnv(changed)).toEqual(first);
    const url = new URL(database.url);
    url.username = serviceRoleName(database.name, SERVICE_SCHEMAS['llm-gateway']);
    url.password = `new-${database.name}`;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      expect((await client.query<{ user: string }>('SELECT current_user AS user')).rows[0].user).toBe(
        url.username,
      );
    } finally {
      await client.end();
    }
  });

  it('names the roles as flowmesh start does, so a local mesh and a deployment agree', async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'fm-db-roles-'));
    try {
      const urlOf = await localDatabaseRoles(database.url, workDir, (message) => {
        throw new Error(message);
      });
      for (const meshProcess of MESH_PROCESSES) {
        expect(new URL(urlOf!(meshProcess)).username).toBe(roleOf(meshProcess));
      }
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  });

  it.each([
    [{ DATABASE_URL: undefined }, {}, /^DATABASE_URL not set/],
    [
      { [rolePasswordVariable('memory-service')]: undefined },
      {},
      /^FLOWMESH_DB_PASSWORD_MEMORY_SERVICE not set/,
    ],
    [
      { [rolePasswordVariable('flow-orchestrator-worker')]: undefined },
      {},
      /^FLOWMESH_DB_PASSWORD_FLOW_ORCHESTRATOR_WORKER not set/,
    ],
    [
      { [rolePasswordVariable('llm-gateway')]: 'a/b@c' },
      {},
      /^FLOWMESH_DB_PASSWORD_LLM_GATEWAY may hold only/,
    ],
    [
      {},
      { expectEndpoint: 'postgres://elsewhere:5432/flowmesh' },
      /but the services will connect to elsewhere:5432\/flowmesh/,
    ],
  ])('refuses %j %j before touching the database', async (override, options, message) => {
    await expect(provisionRolesFromEnv({ ...env, ...override }, options)).rejects.toThrow(message);
  });

  it('exits non-zero with one line naming the problem, and no password', async () => {
    const unreachable = 'postgres://admin:s3cret@127.0.0.1:1/flowmesh';
    const result = await runFlowmesh(['db', 'provision-roles'], {
      env: { ...env, DATABASE_URL: unreachable },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^flowmesh: could not provision the roles: cannot connect to PostgreSQL at 127\.0\.0\.1:1\/flowmesh as admin: .+\n$/,
    );
    expect(result.stderr).not.toContain('s3cret');
  });
});
