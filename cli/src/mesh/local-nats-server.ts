import { accessSync, constants, mkdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ChildSupervisor } from './child-supervisor.js';
import { tcpReachable } from './infrastructure-check.js';
import { MeshChild } from './mesh-child.js';
import { describeExit } from './wait-ready.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** `nats-server` on PATH, or Debian's `/usr/sbin/nats-server` (sbin is often not on a user's PATH). */
export function findNatsServerBinary(pathVariable = process.env.PATH ?? ''): string | undefined {
  const candidates = [
    ...pathVariable
      .split(delimiter)
      .filter(Boolean)
      .map((dir) => join(dir, 'nats-server')),
    '/usr/sbin/nats-server',
  ];
  return candidates.find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Host and port of a single loopback NATS URL; only such a server may be started for the user. */
export function localNatsAddress(natsUrl: string): { host: string; port: number } | undefined {
  if (natsUrl.includes(',')) return undefined;
  try {
    const url = new URL(natsUrl);
    if (url.protocol !== 'nats:' || !LOOPBACK.has(url.hostname) || url.username) return undefined;
    return {
      host: url.hostname === 'localhost' ? '127.0.0.1' : url.hostname,
      port: Number(url.port || 4222),
    };
  } catch {
    return undefined;
  }
}

export interface LocalNatsOptions {
  readonly binary: string;
  readonly host: string;
  readonly port: number;
  /** JetStream storage, kept between runs (`.flowmesh/nats`). */
  readonly dataDir: string;
  /** A configuration file (users and permissions) on top of the flags. */
  readonly configFile?: string;
  readonly onLine: (line: string) => void;
  readonly readyTimeoutMs?: number;
}

/** Starts `nats-server -js` (with `configFile` when given) and resolves once it accepts connections. */
export async function startLocalNatsServer(options: LocalNatsOptions): Promise<MeshChild> {
  const child = spawnLocalNatsServer(options);
  await waitForNatsServer(child, options);
  return child;
}

/** Spawns the server; `waitForNatsServer` tells when it accepts connections. */
export function spawnLocalNatsServer(options: LocalNatsOptions): MeshChild {
  mkdirSync(options.dataDir, { recursive: true });
  return new MeshChild(
    {
      name: 'nats-server',
      command: options.binary,
      args: [
        ...(options.configFile ? ['-c', options.configFile] : []),
        '-js',
        '-a',
        options.host,
        '-p',
        String(options.port),
        '-sd',
        options.dataDir,
      ],
      env: process.env,
    },
    options.onLine,
  );
}

/** Resolves once `child` accepts connections; kills it and rejects if it exits or takes too long. */
export async function waitForNatsServer(
  child: MeshChild,
  options: Pick<LocalNatsOptions, 'host' | 'port' | 'readyTimeoutMs'>,
): Promise<void> {
  let exit: string | undefined;
  void child.exited.then((info) => {
    exit = describeExit(info);
  });
  const deadline = Date.now() + (options.readyTimeoutMs ?? 10_000);
  while (Date.now() < deadline) {
    if (exit) throw new Error(`nats-server exited at start (${exit}): ${child.recentOutput(5).join(' | ')}`);
    if (await tcpReachable(`nats://${options.host}:${options.port}`, 4222, 500)) return;
    await Promise.race([new Promise((resolve) => setTimeout(resolve, 100)), child.exited]);
  }
  child.signal('SIGKILL');
  throw new Error(`nats-server did not accept connections on ${options.host}:${options.port}`);
}

/**
 * Keeps the mesh's own nats-server running as the services are kept: restarted when it exits on
 * its own, on the same port and JetStream storage; the services reconnect by themselves.
 */
export function superviseLocalNatsServer(
  first: MeshChild,
  options: LocalNatsOptions,
  onRestart: (message: string) => void,
): ChildSupervisor {
  return new ChildSupervisor(first, {
    spawn: () => spawnLocalNatsServer(options),
    ready: (child) => waitForNatsServer(child, options),
    onRestart,
  });
}

/**
 * One line on how to get a nats-server on this system, for when none runs and none is installed:
 * the system's package manager where it ships one, else Go or the release downloads.
 */
export function natsServerInstallHint(
  system: NodeJS.Platform = process.platform,
  osRelease = readOsRelease(),
): string {
  if (system === 'darwin') return 'install one with `brew install nats-server`';
  if (system === 'win32')
    return 'install one with `choco install nats-server` (or a release from https://github.com/nats-io/nats-server/releases)';
  const ids = new Set(
    [/^ID=(.*)$/m, /^ID_LIKE=(.*)$/m].flatMap((field) =>
      (field.exec(osRelease)?.[1] ?? '').replace(/"/g, '').split(/\s+/).filter(Boolean),
    ),
  );
  if (ids.has('debian') || ids.has('ubuntu')) return 'install one with `sudo apt-get install nats-server`';
  if (ids.has('fedora')) return 'install one with `sudo dnf install nats-server`';
  if (ids.has('arch')) return 'install one with `sudo pacman -S nats-server`';
  if (ids.has('alpine')) return 'install one with `sudo apk add nats-server`';
  return 'install one with `go install github.com/nats-io/nats-server/v2@latest` (or a release from https://github.com/nats-io/nats-server/releases)';
}

function readOsRelease(): string {
  try {
    return readFileSync('/etc/os-release', 'utf8');
  } catch {
    return '';
  }
}
