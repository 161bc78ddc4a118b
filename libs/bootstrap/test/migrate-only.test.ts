import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ensureBuilt, withTestDatabase, type TestDatabase } from '@flowmesh/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const main = fileURLToPath(new URL('../../../services/memory-service/dist/main.js', import.meta.url));

/** `node main.js --migrate-only`: its exit code and output, never throwing on a failed exit. */
async function migrateOnly(env: NodeJS.ProcessEnv) {
  try {
    const { stdout, stderr } = await run(process.execPath, [main, '--migrate-only'], {
      env: { PATH: process.env.PATH, ...env },
      timeout: 60_000,
    });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout + failed.stderr };
  }
}

// What the chart's pre-install/pre-upgrade migrations Job runs for each service.
describe('a service started with --migrate-only', () => {
  let database: TestDatabase;
  beforeAll(() => {
    ensureBuilt();
    database = withTestDatabase('migrate');
  });
  afterAll(() => database.drop());

  it('creates database, schema and tables, then exits 0 without starting (no NATS needed); again: up to date', async () => {
    const env = { DATABASE_URL: database.url, NATS_URL: 'nats://127.0.0.1:1' };
    const first = await migrateOnly(env);
    expect(first.out).toMatch(/applied \d+ migration/);
    expect(first.code).toBe(0);

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>('SELECT name FROM memory.migrations ORDER BY id');
      expect(rows.map((row) => row.name)).toEqual([
        'CreateOutbox1700000000000',
        'CreateMemoryTables1733500000000',
        'AddMemoryLocks1765100000000',
      ]);
    } finally {
      await client.end();
    }

    const second = await migrateOnly(env);
    expect(second.out).toMatch(/schema is up to date/);
    expect(second.code).toBe(0);
  });

  it('says which setting is wrong and exits 78', async () => {
    const result = await migrateOnly({ DATABASE_URL: 'mysql://nowhere' });
    expect(result.out).toMatch(/DATABASE_URL/);
    expect(result.code).toBe(78);
  });
});
