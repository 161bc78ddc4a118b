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
  /** Resolves when a process exits on its own while the mesh runs (never during stop()). */
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

/**
 * Starts each process of the mesh as its own OS process (`node services/<name>/dist/main.js`,
 * the worker with `FLOWMESH_ROLE=worker`) and waits until every `/readyz` answers. If one fails
 * to start, the others are stopped and the error names it with its last lines of output.
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
  const children = launches.map(({ meshProcess, entry, port }) => {
    const child = new MeshChild(
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
    return { meshProcess, child, url: `http://${host}:${port}` };
  });

  const stop = async (): Promise<StopReport[]> => {
    stopping = true;
    return Promise.all(children.map(({ child }) => stopChild(child, options.stopTimeoutMs)));
  };

  try {
    await Promise.all(
      children.map(({ meshProcess, child, url }) =>
        waitForReady(`${url}/readyz`, { timeoutMs: options.readyTimeoutMs, exited: child.exited }).catch(
          (error: unknown) => {
            const reason = error instanceof NotReadyError ? error.message : String(error);
            throw new MeshStartError(meshProcess.name, reason, child.recentOutput());
          },
        ),
      ),
    );
  } catch (error) {
    await stop();
    throw error;
  }

  const crashed = new Promise<{ name: string; exit: ExitInfo; output: string[] }>((resolve) => {
    for (const { meshProcess, child } of children) {
      void child.exited.then((exit) => {
        if (!stopping) resolve({ name: meshProcess.name, exit, output: child.recentOutput() });
      });
    }
  });

  return {
    processes: children.map(({ meshProcess, child, url }) => ({
      name: meshProcess.name,
      process: meshProcess,
      url,
      pid: child.pid,
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
