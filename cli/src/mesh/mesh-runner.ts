import { existsSync } from 'node:fs';
import { httpPortVariable, type MeshProcess } from '@flowmesh/contracts';
import { MeshChild, type ExitInfo } from './mesh-child.js';
import { resolveServiceEntry } from './service-entry.js';
import { describeExit, NotReadyError, waitForReady } from './wait-ready.js';

export interface MeshRunnerOptions {
  readonly processes: readonly MeshProcess[];
  /** HTTP port of each process, by process name. */
  readonly ports: Readonly<Record<string, number>>;
  /** Environment shared by every process (NATS_URL, DATABASE_URL, FLOWMESH_SUBJECT_PREFIX, ...). */
  readonly env: NodeJS.ProcessEnv;
  /** Environment for one process only, on top of `env` (a secret only that service reads). */
  readonly envOf?: (meshProcess: MeshProcess) => NodeJS.ProcessEnv;
  readonly host?: string;
  readonly onLine: (processName: string, line: string, stream: 'stdout' | 'stderr') => void;
  readonly readyTimeoutMs: number;
  /** How long a process may take to exit after SIGTERM before it is killed. */
  readonly stopTimeoutMs: number;
  /** Told when a process that exited on its own is restarted, and when it is back. */
  readonly onRestart?: (message: string) => void;
}

export interface RunningProcess {
  readonly name: string;
  readonly process: MeshProcess;
  readonly url: string;
  readonly pid: number | undefined;
}

export interface StopReport {
  readonly name: string;
  readonly exit: ExitInfo;
  readonly durationMs: number;
  /** True when the process outlived the stop timeout and was killed. */
  readonly killed: boolean;
}

export interface RunningMesh {
  readonly processes: readonly RunningProcess[];
  /**
   * Resolves when a process keeps exiting on its own (more than `MAX_RESTARTS` times in ten
   * minutes) while the mesh runs; never during stop().
   */
  readonly crashed: Promise<{ name: string; exit: ExitInfo; output: string[] }>;
  stop(): Promise<StopReport[]>;
}

export class MeshStartError extends Error {
  constructor(
    readonly processName: string,
    reason: string,
    readonly output: readonly string[],
  ) {
    super(`${processName} ${reason}`);
    this.name = 'MeshStartError';
  }
}

/** Restarts of one process within `RESTART_WINDOW_MS` before the supervisor gives up on it. */
export const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 10 * 60_000;
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;

/**
 * Starts each process of the mesh as its own OS process (`node services/<name>/dist/main.js`,
 * the worker with `FLOWMESH_ROLE=worker`) and waits until every `/readyz` answers. If one fails
 * to start, the others are stopped and the error names it with its last lines of output. Once
 * the mesh runs, a process that exits on its own is started again after a backoff (1 s, doubling
 * to 30 s), said through `onRestart`; `crashed` resolves only when one exits more than
 * `MAX_RESTARTS` times within ten minutes.
 */
export async function startMeshProcesses(options: MeshRunnerOptions): Promise<RunningMesh> {
  const host = options.host ?? '127.0.0.1';
  let stopping = false;
  // Everything that can be checked before a process starts is, so a failure leaks nothing.
  const launches = options.processes.map((meshProcess) => {
    const entry = resolveServiceEntry(meshProcess.service);
    if (!existsSync(entry)) {
      throw new MeshStartError(meshProcess.name, `is not built (${entry} is missing): run npm run build`, []);
    }
    const port = options.ports[meshProcess.name];
    if (port === undefined) throw new MeshStartError(meshProcess.name, 'has no HTTP port assigned', []);
    return { meshProcess, entry, port };
  });
  const spawnChild = ({ meshProcess, entry, port }: (typeof launches)[number]) =>
    new MeshChild(
      {
        name: meshProcess.name,
        command: process.execPath,
        args: ['--enable-source-maps', entry],
        env: {
          ...options.env,
          ...options.envOf?.(meshProcess),
          FLOWMESH_ROLE: meshProcess.role,
          FLOWMESH_HTTP_HOST: host,
          [httpPortVariable(meshProcess.name)]: String(port),
        },
      },
      (line, stream) => options.onLine(meshProcess.name, line, stream),
    );
  const supervised = launches.map((launch) => ({
    launch,
    child: spawnChild(launch),
    url: `http://${host}:${launch.port}`,
    restarts: [] as number[],
    pendingRestart: undefined as NodeJS.Timeout | undefined,
  }));

  const stop = async (): Promise<StopReport[]> => {
    stopping = true;
    for (const entry of supervised) clearTimeout(entry.pendingRestart);
    return Promise.all(supervised.map(({ child }) => stopChild(child, options.stopTimeoutMs)));
  };

  try {
    await Promise.all(
      supervised.map(({ launch, child, url }) =>
        waitForReady(`${url}/readyz`, { timeoutMs: options.readyTimeoutMs, exited: child.exited }).catch(
          (error: unknown) => {
            const reason = error instanceof NotReadyError ? error.message : String(error);
            throw new MeshStartError(launch.meshProcess.name, reason, child.recentOutput());
          },
        ),
      ),
    );
  } catch (error) {
    await stop();
    throw error;
  }

  let giveUp: (crash: { name: string; exit: ExitInfo; output: string[] }) => void = () => {};
  const crashed = new Promise<{ name: string; exit: ExitInfo; output: string[] }>((resolve) => {
    giveUp = resolve;
  });
  const watch = (entry: (typeof supervised)[number]) => {
    const { child } = entry;
    const name = entry.launch.meshProcess.name;
    void child.exited.then((exit) => {
      if (stopping || entry.child !== child) return;
      const now = Date.now();
      entry.restarts = entry.restarts.filter((at) => now - at < RESTART_WINDOW_MS);
      if (entry.restarts.length >= MAX_RESTARTS) {
        giveUp({ name, exit, output: child.recentOutput() });
        return;
      }
      entry.restarts.push(now);
      const attempt = entry.restarts.length;
      const delay = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (attempt - 1));
      options.onRestart?.(
        `${name} stopped unexpectedly (${describeExit(exit)}); restarting it in ${delay / 1000} s (restart ${attempt} of ${MAX_RESTARTS} within 10 min)`,
      );
      entry.pendingRestart = setTimeout(() => {
        if (stopping) return;
        entry.child = spawnChild(entry.launch);
        watch(entry);
        waitForReady(`${entry.url}/readyz`, { timeoutMs: options.readyTimeoutMs, exited: entry.child.exited })
          .then(() => options.onRestart?.(`${name} is back (pid ${entry.child.pid ?? '?'})`))
          // One that does not come up exits (or is left to its own exit): its exit restarts it again.
          .catch(() => undefined);
      }, delay);
    });
  };
  for (const entry of supervised) watch(entry);

  return {
    processes: supervised.map((entry) => ({
      name: entry.launch.meshProcess.name,
      process: entry.launch.meshProcess,
      url: entry.url,
      get pid() {
        return entry.child.pid;
      },
    })),
    crashed,
    stop,
  };
}

async function stopChild(child: MeshChild, timeoutMs: number): Promise<StopReport> {
  const started = Date.now();
  child.signal('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const first = await Promise.race([child.exited, timedOut]);
  clearTimeout(timer);
  if (first === 'timeout') {
    child.signal('SIGKILL');
    return { name: child.name, exit: await child.exited, durationMs: Date.now() - started, killed: true };
  }
  return { name: child.name, exit: first, durationMs: Date.now() - started, killed: false };
}

export { describeExit };
