import net from 'node:net';

/**
 * Before starting the mesh, make sure NATS and PostgreSQL answer, and if not, say which and
 * how to start it in one line: six services failing their readiness checks say far less.
 */
export const HOW_TO_START = {
  nats: 'nats-server -js -a 127.0.0.1 -p 4222 -sd /var/lib/nats-server',
  postgres: 'pg_ctlcluster $(ls /etc/postgresql) main start',
} as const;

export interface InfrastructureTargets {
  readonly natsUrl: string;
  readonly databaseUrl: string;
}

export interface UnreachableDependency {
  readonly dependency: 'nats' | 'postgres';
  /** One line: which, where, and how to start it. */
  readonly message: string;
}

export async function checkInfrastructure(
  targets: InfrastructureTargets,
  timeoutMs = 1_500,
): Promise<UnreachableDependency[]> {
  const [nats, postgres] = await Promise.all([
    anyReachable(
      targets.natsUrl.split(',').map((url) => url.trim()),
      4222,
      timeoutMs,
    ),
    anyReachable([targets.databaseUrl], 5432, timeoutMs),
  ]);
  const problems: UnreachableDependency[] = [];
  if (!nats) {
    problems.push({
      dependency: 'nats',
      message: `NATS is not reachable at ${redactUrls(targets.natsUrl)}; start it with \`${HOW_TO_START.nats}\` or set NATS_URL`,
    });
  }
  if (!postgres) {
    problems.push({
      dependency: 'postgres',
      message: `PostgreSQL is not reachable at ${redactUrl(targets.databaseUrl)}; start it with \`${HOW_TO_START.postgres}\` or set DATABASE_URL`,
    });
  }
  return problems;
}

async function anyReachable(
  urls: readonly string[],
  defaultPort: number,
  timeoutMs: number,
): Promise<boolean> {
  const results = await Promise.all(urls.map((url) => tcpReachable(url, defaultPort, timeoutMs)));
  return results.some(Boolean);
}

/** True when something accepts a TCP connection at the URL's host and port. */
export function tcpReachable(url: string, defaultPort: number, timeoutMs: number): Promise<boolean> {
  let host: string;
  let port: number;
  try {
    const parsed = new URL(url);
    host = parsed.hostname.replace(/^\[|\]$/g, '');
    port = Number(parsed.port || defaultPort);
  } catch {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (reachable: boolean) => {
      socket.destroy();
      resolve(reachable);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Every URL of a comma-separated list, redacted: NATS_URL may carry a user's password. */
export function redactUrls(urls: string): string {
  return urls
    .split(',')
    .map((url) => redactUrl(url.trim()))
    .join(',');
}

export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*):[^@/\s]*@/i, '$1:***@');
}
