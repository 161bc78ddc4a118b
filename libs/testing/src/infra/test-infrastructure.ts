import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import net from 'node:net';

/**
 * Where tests find NATS (with JetStream) and PostgreSQL, in this order:
 *  1. `NATS_URL` / `DATABASE_URL` when set (the local servers on a development machine or CI);
 *  2. containers started with testcontainers, where a Docker engine answers;
 *  3. the default local ports, when something listens there;
 *  otherwise a clear error that says how to start them.
 */
export interface TestInfrastructure {
  natsUrl: string;
  databaseUrl: string;
  /** Stops what this process started (containers); a no-op for external servers. */
  stop(): Promise<void>;
}

const LOCAL_NATS = 'nats://127.0.0.1:4222';
const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres';

export const HOW_TO_START =
  'start them, or set NATS_URL and DATABASE_URL: ' +
  'NATS: nats-server -js -a 127.0.0.1 -p 4222 -sd /var/lib/nats-server; PostgreSQL: pg_ctlcluster $(ls /etc/postgresql) main start';

export async function resolveTestInfrastructure(): Promise<TestInfrastructure> {
  const fromEnv = { natsUrl: process.env.NATS_URL, databaseUrl: process.env.DATABASE_URL };
  if (fromEnv.natsUrl && fromEnv.databaseUrl) {
    return { natsUrl: fromEnv.natsUrl, databaseUrl: fromEnv.databaseUrl, stop: async () => {} };
  }
  if (dockerAvailable()) return startContainers(fromEnv);

  const natsUrl = fromEnv.natsUrl ?? LOCAL_NATS;
  const databaseUrl = fromEnv.databaseUrl ?? LOCAL_POSTGRES;
  const missing: string[] = [];
  if (!(await listening(natsUrl))) missing.push(`NATS at ${natsUrl}`);
  if (!(await listening(databaseUrl))) missing.push(`PostgreSQL at ${databaseUrl}`);
  if (missing.length > 0) {
    throw new Error(
      `tests need ${missing.join(' and ')}, and no Docker engine is available: ${HOW_TO_START}`,
    );
  }
  return { natsUrl, databaseUrl, stop: async () => {} };
}

function dockerAvailable(): boolean {
  return Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
}

async function startContainers(fromEnv: {
  natsUrl?: string;
  databaseUrl?: string;
}): Promise<TestInfrastructure> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const stops: Array<() => Promise<unknown>> = [];
  let natsUrl = fromEnv.natsUrl;
  if (!natsUrl) {
    const nats = await new GenericContainer('nats:2.10')
      .withCommand(['-js'])
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start();
    stops.push(() => nats.stop());
    natsUrl = `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`;
  }
  let databaseUrl = fromEnv.databaseUrl;
  if (!databaseUrl) {
    const pg = await new PostgreSqlContainer('postgres:16').start();
    stops.push(() => pg.stop());
    databaseUrl = pg.getConnectionUri();
  }
  return {
    natsUrl,
    databaseUrl,
    stop: async () => {
      await Promise.all(stops.map((stop) => stop()));
    },
  };
}

async function listening(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  const defaultPort = url.startsWith('nats') ? 4222 : 5432;
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || defaultPort) });
    // Only a silent address waits this out: a port nobody listens on refuses at once.
    socket.setTimeout(5_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/** What every test-made name starts with, so `.ci/clean-test-leftovers.mjs` finds a killed run's. */
export const TEST_ID_MARK = 'fmt_';

/**
 * A short unique name for one test file's world: its subject prefix, its stream names and its
 * Postgres schema or database all derive from it, so parallel test files never meet.
 */
export function uniqueTestId(label = 't'): string {
  const clean =
    label
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '')
      .slice(0, 12) || 't';
  return `${TEST_ID_MARK}${clean}${randomBytes(4).toString('hex')}`;
}
