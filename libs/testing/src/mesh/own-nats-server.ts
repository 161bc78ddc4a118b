import { spawn, type ChildProcess } from 'node:child_process';
import {
  accessSync,
  constants,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../wait/wait-for.js';

/** Debian's nats-server, which the development machines and CI have. */
export const NATS_SERVER_BINARY = '/usr/sbin/nats-server';

/** True when a nats-server of a test's own can be started here. */
export function natsServerInstalled(): boolean {
  try {
    accessSync(NATS_SERVER_BINARY, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface OwnNatsServer {
  /** `nats://127.0.0.1:<port>`, without credentials. */
  readonly url: string;
  /** The server's temporary directory (configuration, JetStream data). */
  readonly dir: string;
  /** SIGKILL, as a crash would, resolved once the process is gone; the storage stays unless told. */
  kill(options?: { loseStorage?: boolean }): Promise<void>;
  /** Starts the server again on the same port and storage, once it was killed. */
  restart(): Promise<void>;
  stop(): void;
}

/**
 * A nats-server with JetStream for one test, on a port it picks, in a temporary directory that
 * `stop()` removes: for what the shared server cannot show (authorization, little storage).
 * `config` is appended to the listen and JetStream settings; `files` are written beside it
 * (for an `include`).
 */
export async function startOwnNatsServer(
  options: { config?: string; jetstream?: string; files?: Record<string, string> } = {},
): Promise<OwnNatsServer> {
  const dir = mkdtempSync(join(tmpdir(), 'fm-own-nats-'));
  for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(join(dir, name), text);
  const configFile = join(dir, 'nats.conf');
  const writeConfig = (listen: string) =>
    writeFileSync(
      configFile,
      `listen: ${listen}\nports_file_dir: "${dir}"\njetstream { store_dir: "${dir}/js"${options.jetstream ? `, ${options.jetstream}` : ''} }\n${options.config ?? ''}\n`,
    );
  writeConfig('127.0.0.1:-1');
  let server: ChildProcess = spawn(NATS_SERVER_BINARY, ['-c', configFile], { stdio: 'ignore' });
  const stop = () => {
    server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  // The server writes its port to <dir>/nats-server_<pid>.ports once it listens (-1: any port).
  const listening = () =>
    waitFor(
      () => {
        const file = readdirSync(dir).find((name) => name === `nats-server_${server.pid}.ports`);
        if (!file) return undefined;
        return (JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nats: string[] }).nats[0];
      },
      { timeoutMs: 30_000, intervalMs: 50, description: 'the NATS server to listen' },
    );
  try {
    const url = await listening();
    // A restart must come back where the clients look for it.
    writeConfig(new URL(url).host);
    return {
      url,
      dir,
      stop,
      kill: async ({ loseStorage = false } = {}) => {
        if (server.exitCode === null && server.signalCode === null) {
          const exited = new Promise((resolve) => server.once('exit', resolve));
          server.kill('SIGKILL');
          await exited;
        }
        if (loseStorage) rmSync(join(dir, 'js'), { recursive: true, force: true });
      },
      restart: async () => {
        server = spawn(NATS_SERVER_BINARY, ['-c', configFile], { stdio: 'ignore' });
        await listening();
      },
    };
  } catch (error) {
    stop();
    throw error;
  }
}
