import { MESH_PROCESSES, type MeshProcess, type ServiceName } from '@flowmesh/contracts';
import {
  describeExit,
  startEntryProxy,
  startMeshProcesses,
  type EntryProxy,
  type RunningMesh,
  type StopReport,
} from '@flowmesh/cli';
import { ensureBuilt } from './ensure-built.js';
import { withFreePorts } from './free-port.js';
import { removeTestStreams } from './test-streams.js';
import { testSubjectPrefix, withTestDatabase } from './test-database.js';

export interface StartMeshOptions {
  /** Process names from MESH_PROCESSES (`llm-gateway`, `flow-orchestrator-worker`); default all. */
  readonly processes?: readonly string[];
  /** The NATS the processes use (default NATS_URL): a server of the test's own, to kill and restart. */
  readonly natsUrl?: string;
  /** Extra environment for every process. */
  readonly env?: NodeJS.ProcessEnv;
  /** Also serve the one HTTP entry point (in this process) in front of the services. */
  readonly entry?: boolean;
  readonly readyTimeoutMs?: number;
  /** The services' FLOWMESH_SHUTDOWN_TIMEOUT_MS; stop() fails if a process takes longer. */
  readonly shutdownTimeoutMs?: number;
  /** Echo every process's output to this test's stderr (default: only when DEBUG_MESH=1). */
  readonly echo?: boolean;
}

export interface TestMesh {
  /** HTTP base URL of each process, by process name. */
  readonly urls: Readonly<Record<string, string>>;
  /** The entry point's URL, when started with `entry: true`. */
  readonly entryUrl?: string;
  /** What the processes run against; pass it to a CLI process or a client in the test. */
  readonly env: { NATS_URL: string; DATABASE_URL: string; FLOWMESH_SUBJECT_PREFIX: string };
  readonly running: RunningMesh;
  /** Output of one process so far, one entry per line. */
  logs(processName: string): readonly string[];
  /**
   * SIGTERM to every process; resolves with each exit once all are gone. Rejects, after
   * cleaning up, when a process did not exit with code 0 within the shutdown timeout.
   */
  stop(): Promise<StopReport[]>;
}

/**
 * "A running mesh with these services": each as its own OS process from its build output, on a
 * fresh subject prefix and a fresh database, with free ports. Waits until every `/readyz`
 * answers. Always call `stop()` (in `afterAll`): it also drops the database and the streams.
 */
export async function startMesh(options: StartMeshOptions = {}): Promise<TestMesh> {
  ensureBuilt();
  const processes = selectProcesses(options.processes);
  const natsUrl = options.natsUrl ?? requiredEnv('NATS_URL');
  const prefix = testSubjectPrefix('mesh');
  const database = withTestDatabase('mesh');
  const env = { NATS_URL: natsUrl, DATABASE_URL: database.url, FLOWMESH_SUBJECT_PREFIX: prefix };
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? 10_000;
  const echo = options.echo ?? process.env.DEBUG_MESH === '1';

  const logs = new Map<string, string[]>(processes.map((p) => [p.name, []]));

  const cleanup = () => Promise.allSettled([database.drop(), removeTestStreams(natsUrl, prefix)]);
  let running: RunningMesh;
  try {
    // The processes are told their ports: started again on others if one was taken meanwhile.
    running = await withFreePorts(processes.length, (chosen) => {
      for (const lines of logs.values()) lines.length = 0;
      return startMeshProcesses({
        processes,
        ports: Object.fromEntries(processes.map((p, i) => [p.name, chosen[i]])),
        env: {
          ...process.env,
          ...options.env,
          ...env,
          FLOWMESH_SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs),
          // The build output runs outside vitest; make sure nothing points it at test-only code.
          // FLOWMESH_MESH_NODE_OPTIONS passes flags on purpose (e.g. --cpu-prof for a bench).
          NODE_OPTIONS: process.env.FLOWMESH_MESH_NODE_OPTIONS ?? '',
        },
        onLine: (name, line) => {
          logs.get(name)?.push(line);
          if (echo) process.stderr.write(`[${name}] ${line}\n`);
        },
        readyTimeoutMs: options.readyTimeoutMs ?? 150_000,
        stopTimeoutMs: shutdownTimeoutMs + 2_000,
      });
    });
  } catch (error) {
    await cleanup();
    throw error;
  }

  let entry: EntryProxy | undefined;
  if (options.entry) {
    const upstreams: Partial<Record<ServiceName, string>> = {};
    for (const p of running.processes) if (p.process.role === 'service') upstreams[p.process.service] = p.url;
    entry = await startEntryProxy({ host: '127.0.0.1', port: 0, upstreams });
  }

  return {
    urls: Object.fromEntries(running.processes.map((p) => [p.name, p.url])),
    entryUrl: entry?.url,
    env,
    running,
    logs: (name) => logs.get(name) ?? [],
    stop: async () => {
      await entry?.close();
      const reports = await running.stop();
      await cleanup();
      const unclean = reports.filter((r) => r.killed || r.exit.code !== 0);
      if (unclean.length > 0) {
        const details = unclean.map(
          (r) => `${r.name}: ${r.killed ? 'killed after the timeout' : describeExit(r.exit)}`,
        );
        throw new Error(`mesh did not stop cleanly: ${details.join('; ')}`);
      }
      return reports;
    },
  };
}

function selectProcesses(names: readonly string[] | undefined): MeshProcess[] {
  if (!names) return [...MESH_PROCESSES];
  return names.map((name) => {
    const found = MESH_PROCESSES.find((p) => p.name === name);
    if (!found)
      throw new Error(
        `unknown mesh process "${name}"; known: ${MESH_PROCESSES.map((p) => p.name).join(', ')}`,
      );
    return found;
  });
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(`${name} is not set; run tests through vitest with libs/testing/vitest.config.ts`);
  return value;
}
