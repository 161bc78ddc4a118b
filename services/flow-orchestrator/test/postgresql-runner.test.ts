import { resolveTestInfrastructure, uniqueTestId } from '@flowmesh/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptJob } from '../src/ports/script-runner.port.js';
import { PostgresqlRunner } from '../src/runners/postgresql/postgresql.runner.js';
import { jobFailure as failure, scriptJobs } from '../src/runners/script-job.fixture.js';

/**
 * The postgresql runner against the real local Postgres: a schema of its own, the resource built
 * from DATABASE_URL as the engine would hand it over after resolving `$res:`.
 */
const runner = new PostgresqlRunner({ maxResultBytes: 4 * 1024, connectTimeoutMs: 5_000 });
const schema = uniqueTestId('pgrunner');
let admin: pg.Client;
let database: Record<string, unknown>;

beforeAll(async () => {
  const { databaseUrl } = await resolveTestInfrastructure();
  const url = new URL(databaseUrl);
  database = {
    host: url.hostname,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    dbname: url.pathname.slice(1) || 'postgres',
    sslmode: 'disable',
  };
  admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(
    `CREATE TABLE ${schema}.users (id serial PRIMARY KEY, name text NOT NULL, age int NOT NULL)`,
  );
  await admin.query(
    `INSERT INTO ${schema}.users (name, age) VALUES ('ada', 36), ('alan', 41), ('grace', 85)`,
  );
});

afterAll(async () => {
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
});

const pgJob = scriptJobs('postgresql', { timeoutMs: 10_000 });
function job(content: string, args: Record<string, unknown> = {}, extra: Partial<ScriptJob> = {}): ScriptJob {
  return pgJob(content, { args: { database, ...args }, ...extra });
}

describe('PostgresqlRunner', () => {
  it('binds the arguments by their declared names and returns rows as objects', async () => {
    const content = `-- $1 name\n-- $2 n\nSELECT $1::text AS name, $2::int * 2 AS doubled;`;
    await expect(runner.run(job(content, { n: 21, name: 'pg' }), () => {})).resolves.toEqual([
      { name: 'pg', doubled: 42 },
    ]);
  });

  it('uses declared defaults for missing arguments', async () => {
    const content = `-- $1 min_age = 40\n-- $2 suffix = '!'\nSELECT name || $2::text AS name FROM ${schema}.users WHERE age > $1::int ORDER BY id;`;
    await expect(runner.run(job(content), () => {})).resolves.toEqual([
      { name: 'alan!' },
      { name: 'grace!' },
    ]);
    await expect(runner.run(job(content, { min_age: 80, suffix: '?' }), () => {})).resolves.toEqual([
      { name: 'grace?' },
    ]);
  });

  it('keeps an SQL injection attempt a value', async () => {
    const attack = `ada'; DROP TABLE ${schema}.users; --`;
    const content = `-- $1 name\nSELECT count(*)::int AS matches FROM ${schema}.users WHERE name = $1::text;`;
    await expect(runner.run(job(content, { name: attack }), () => {})).resolves.toEqual([{ matches: 0 }]);
    const inserted = `-- $1 name\nINSERT INTO ${schema}.users (name, age) VALUES ($1::text, 1) RETURNING name;`;
    await expect(runner.run(job(inserted, { name: attack }), () => {})).resolves.toEqual([{ name: attack }]);
    const { rows } = await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.users`);
    expect(rows[0]?.n).toBe(4);
  });

  it('stops a statement at the job time limit', async () => {
    const started = Date.now();
    const error = await failure(runner.run(job('SELECT pg_sleep(30);', {}, { timeoutMs: 400 }), () => {}));
    expect([error.name, error.message]).toEqual([
      'Timeout',
      'the job did not finish within its time limit of 400 ms and was stopped',
    ]);
    // Not held until the statement ends (30 s): a bound against that, not a deadline.
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('reports a database error with its SQLSTATE', async () => {
    const error = await failure(runner.run(job(`SELECT * FROM ${schema}.missing;`), () => {}));
    expect(error.name).toBe('PostgresError');
    expect(error.message).toBe(`relation "${schema}.missing" does not exist [SQLSTATE 42P01]`);
  });

  it('names the database argument when it is missing or not a resource', async () => {
    const missing = await failure(runner.run({ ...job('SELECT 1;'), args: {} }, () => {}));
    expect(missing.message).toMatch(/^a postgresql script needs the argument database/);
    const unresolved = await failure(runner.run(job('SELECT 1;', { database: '$res:f/x/db' }), () => {}));
    expect(unresolved.message).toBe(
      'argument database: expected a postgresql resource value, got the text "$res:f/x/db"',
    );
    const partial = await failure(
      runner.run(job('SELECT 1;', { database: { host: 'h', user: 'u' } }), () => {}),
    );
    expect(partial.message).toMatch(/^argument database\.dbname: /);
  });

  it('does not carry session state from one job to the next', async () => {
    const first = `SET search_path TO ${schema}; CREATE TEMP TABLE scratch (x int); SELECT current_setting('search_path') AS path;`;
    await expect(runner.run(job(first), () => {})).resolves.toEqual([[], [], [{ path: schema }]]);
    const second = `SELECT to_regclass('pg_temp.scratch') IS NULL AS gone, current_setting('search_path') = '${schema}' AS same_path;`;
    await expect(runner.run(job(second), () => {})).resolves.toEqual([{ gone: true, same_path: false }]);
  });

  it('refuses a result over the size limit', async () => {
    const error = await failure(runner.run(job("SELECT repeat('x', 10000) AS big;"), () => {}));
    expect(error.name).toBe('ResultTooLarge');
  });
});
