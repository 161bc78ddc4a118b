import { existsSync } from 'node:fs';
import { httpPortVariable, type MeshProcess } from '@flowmesh/contracts';
import { ChildSupervisor, MAX_RESTARTS, type Crash } from './child-supervisor.js';
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
  /**
   * Processes started before the others, which start once these are ready: on a small machine
   * seven Node processes loading their modules at once each wait for the others' CPU, so the
   * ones the API needs come first (issue 34: the API ready within 3 s of a restart).
   */
  readonly startFirst?: readonly string[];
  /** Told as each process first answers /readyz during start-up, with its URL. */
  readonly onReady?: (meshProcess: MeshProcess, url: string) => void;
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
  readonly crashed: Promise<Crash>;
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
 * to start, the others are stopped and the error names it with its last lines of output. Once
 * the mesh runs, a process that exits on its own is started again after a backoff (1 s, doubling
 * to 30 s), said through `onRestart`; `crashed` resolves only when one exits more than
 * `MAX_RESTARTS` times within ten minutes.
 */
export async function startMeshProcesses(options: MeshRunnerOptions): Promise<RunningMesh> {
  const host = options.host ?? '127.0.0.1';
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
  type Started = { launch: (typeof launches)[number]; child: MeshChild; url: string };
  const started: Started[] = [];
  const spawnGroup = (group: typeof launches): Started[] =>
    group.map((launch) => {
      const entry = { launch, child: spawnChild(launch), url: `http://${host}:${launch.port}` };
      started.push(entry);
      return entry;
    });
  const waitGroup = (group: readonly Started[]) =>
    Promise.all(
      group.map(({ launch, child, url }) =>
        waitForReady(`${url}/readyz`, { timeoutMs: options.readyTimeoutMs, exited: child.exited }).then(
          () => options.onReady?.(launch.meshProcess, url),
          (error: unknown) => {
            const reason = error instanceof NotReadyError ? error.message : String(error);
            throw new MeshStartError(launch.meshProcess.name, reason, child.recentOutput());
          },
        ),
      ),
    );
  let supervisors: ChildSupervisor[] = [];

  const stop = async (): Promise<StopReport[]> => {
    for (const supervisor of supervisors) supervisor.stopRestarting();
    const children = supervisors.length > 0 ? supervisors.map((s) => s.child) : started.map((s) => s.child);
    return Promise.all(children.map((child) => stopChild(child, options.stopTimeoutMs)));
  };

  const first = launches.filter((launch) => options.startFirst?.includes(launch.meshProcess.name));
  try {
    if (first.length > 0) await waitGroup(spawnGroup(first));
    await waitGroup(spawnGroup(launches.filter((launch) => !first.includes(launch))));
  } catch (error) {
    await stop();
    throw error;
  }
  // Listed in the order asked for, whatever order they started in.
  started.sort((a, b) => launches.indexOf(a.launch) - launches.indexOf(b.launch));

  supervisors = started.map(
    ({ launch, child, url }) =>
      new ChildSupervisor(child, {
        spawn: () => spawnChild(launch),
        ready: (next) =>
          waitForReady(`${url}/readyz`, { timeoutMs: options.readyTimeoutMs, exited: next.exited }),
        onRestart: options.onRestart,
      }),
  );
  const crashed = Promise.race(supervisors.map((supervisor) => supervisor.crashed));

  return {
    processes: started.map((entry, i) => ({
      name: entry.launch.meshProcess.name,
      process: entry.launch.meshProcess,
      url: entry.url,
      get pid() {
        return supervisors[i].child.pid;
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

export { describeExit, MAX_RESTARTS };
