import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from '@flowmesh/testing';
import pg from 'pg';

/** A PostgreSQL server with `wal_level=logical`, and how to reach it as a resource says. */
export interface LogicalPostgres {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly dbname: string;
  stop(): Promise<void>;
}

/**
 * A server for logical replication: the test's own `DATABASE_URL` server when its `wal_level` is
 * `logical`, else one started for the test from this machine's PostgreSQL binaries (in a
 * temporary directory, on a free port, as the `postgres` user, since initdb refuses root). Why it
 * cannot be had, in one line, when neither works (the test then skips).
 */
export async function startLogicalPostgres(): Promise<LogicalPostgres | string> {
  const shared = new URL(process.env.DATABASE_URL!);
  const level = await walLevel(process.env.DATABASE_URL!);
  if (level === 'logical') {
    return {
      host: shared.hostname,
      port: Number(shared.port || 5432),
      user: decodeURIComponent(shared.username),
      dbname: shared.pathname.slice(1) || 'postgres',
      stop: async () => {},
    };
  }
  const versions = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))
    : [];
  const bin = versions
    .map((version) => `/usr/lib/postgresql/${version}/bin`)
    .find((dir) => existsSync(`${dir}/initdb`));
  const owner = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  if (!bin || owner.status !== 0) {
    return `the server's wal_level is ${level}, not logical, and no PostgreSQL binaries and postgres user here to start one with it`;
  }
  const uid = Number(owner.stdout.trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const dir = mkdtempSync(join(tmpdir(), 'fm-logical-pg-'));
  chownSync(dir, uid, gid);
  const asPostgres = (command: string, args: string[]) =>
    process.getuid?.() === uid
      ? ([command, args] as const)
      : (['runuser', ['-u', 'postgres', '--', command, ...args]] as const);
  const [initdb, initArgs] = asPostgres(`${bin}/initdb`, [
    '-D',
    `${dir}/data`,
    '-A',
    'trust',
    '-U',
    'postgres',
  ]);
  const init = spawnSync(initdb, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return `the server's wal_level is ${level}, not logical, and initdb could not make one (${(init.stderr || init.error?.message || '').trim().split('\n')[0]})`;
  }
  const port = await freePort();
  const [postgres, args] = asPostgres(`${bin}/postgres`, [
    '-D',
    `${dir}/data`,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'wal_level=logical',
    '-c',
    'max_replication_slots=10',
    '-c',
    'max_wal_senders=10',
    '-c',
    'fsync=off',
  ]);
  const server: ChildProcess = spawn(postgres, args, { stdio: 'ignore' });
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await waitFor(async () => ((await walLevel(url).catch(() => undefined)) === 'logical' ? true : undefined), {
    timeoutMs: 60_000,
    intervalMs: 200,
    description: 'the logical PostgreSQL server to accept connections',
  });
  return {
    host: '127.0.0.1',
    port,
    user: 'postgres',
    dbname: 'postgres',
    stop: async () => {
      server.kill('SIGKILL');
      await new Promise((resolve) =>
        server.exitCode !== null ? resolve(undefined) : server.once('exit', resolve),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function walLevel(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query<{ wal_level: string }>('SHOW wal_level')).rows[0].wal_level;
  } finally {
    await client.end();
  }
}
