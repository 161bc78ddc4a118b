import { join } from 'node:path';
import {
  httpPortVariable,
  MESH_OPERATOR_USER,
  MESH_PROCESSES,
  type MeshProcess,
  type ServiceName,
} from '@flowmesh/contracts';
import type { CliSettings } from '../cli.config.js';
import { startEntryProxy, type EntryProxy } from '../entry/entry-proxy.js';
import { checkInfrastructure, redactUrl, tcpReachable } from './infrastructure-check.js';
import { prepareLocalNatsAuth, type LocalNatsAuth } from './local-nats-auth.js';
import {
  findNatsServerBinary,
  localNatsAddress,
  natsServerInstallHint,
  startLocalNatsServer,
  superviseLocalNatsServer,
  type LocalNatsOptions,
} from './local-nats-server.js';
import type { ChildSupervisor } from './child-supervisor.js';
import { startMeshProcesses, type RunningMesh, type StopReport } from './mesh-runner.js';

export interface LocalMeshOptions {
  readonly settings: CliSettings;
  /**
   * Start a local `nats-server`: with NATS_URL unset, an authenticated one of its own
   * (`settings.localNatsPort`); with NATS_URL set, a plain one only when none answers there.
   */
  readonly startNats: boolean;
  /** Where `.flowmesh/` (the local NATS data and users) lives. */
  readonly workDir: string;
  readonly processes?: readonly MeshProcess[];
  /** Environment for one process only (the registry's FLOWMESH_ADMIN_TOKEN). */
  readonly envOf?: (meshProcess: MeshProcess) => NodeJS.ProcessEnv;
  readonly readyTimeoutMs?: number;
  /** Every line of every process, already named. */
  readonly onLine: (processName: string, line: string) => void;
  /** What the mesh itself reports (`starting nats-server ...`). */
  readonly onNotice: (message: string) => void;
  /** Told once the API answers (the registry and the orchestrator are ready), before the rest. */
  readonly onApiReady?: (entryUrl: string) => void;
}

/** What the HTTP API needs to answer (authentication, runs): started before the other processes. */
export const API_PROCESSES: readonly string[] = ['resource-registry', 'flow-orchestrator'];

export interface LocalMesh {
  readonly entryUrl: string;
  /** Where flow-orchestrator serves the gRPC API (`127.0.0.1:50051`). */
  readonly grpcAddress: string;
  /** The URL the CLI reaches the mesh's NATS at (with its own credentials when the mesh has users). */
  readonly natsUrl: string;
  readonly mesh: RunningMesh;
  /** Stops the entry point, every process, then the NATS server it started, if any. */
  stop(): Promise<StopReport[]>;
}

/** Start-up failed before the mesh ran: one line for the user, nothing left running. */
export class LocalMeshError extends Error {}

export async function startLocalMesh(options: LocalMeshOptions): Promise<LocalMesh> {
  const { settings } = options;
  const processes = options.processes ?? MESH_PROCESSES;
  const { server: nats, auth } = await ensureInfrastructure(options);
  // With users, each process gets its own NATS credentials and no one else's.
  const natsUrlOf = (meshProcess: MeshProcess) => auth?.urlOf(meshProcess.name) ?? settings.natsUrl;

  const ports = Object.fromEntries(processes.map((p) => [p.name, portOf(p, settings.env)]));
  const busy = await findBusyPorts({ ...ports, 'gRPC API': settings.grpcPort }, settings.httpHost);
  if (busy.length > 0) {
    await stopNats(nats);
    throw new LocalMeshError(
      `port ${busy.map(([name, port]) => `${port} (${name})`).join(', ')} already in use; is a mesh already running? (flowmesh status)`,
    );
  }

  // The entry point listens from the start and routes to each service once it is ready (503
  // `... is starting` before), so the API answers as soon as its own processes do.
  const upstreams: Partial<Record<ServiceName, string>> = {};
  let entry: EntryProxy;
  try {
    entry = await startEntryProxy({ host: settings.httpHost, port: settings.httpPort, upstreams });
  } catch (error) {
    await stopNats(nats);
    throw new LocalMeshError(
      `cannot serve the entry point on ${settings.httpHost}:${settings.httpPort} (${error instanceof Error ? error.message : String(error)}); set FLOWMESH_HTTP_PORT`,
    );
  }
  const apiWaiting = new Set(API_PROCESSES.filter((name) => processes.some((p) => p.name === name)));

  let mesh: RunningMesh;
  try {
    mesh = await startMeshProcesses({
      processes,
      ports,
      env: {
        ...sharedEnv(settings.env),
        DATABASE_URL: settings.databaseUrl,
        FLOWMESH_SUBJECT_PREFIX: settings.subjectPrefix,
        FLOWMESH_SHUTDOWN_TIMEOUT_MS: String(settings.shutdownTimeoutMs),
      },
      envOf: (meshProcess) => ({
        ...options.envOf?.(meshProcess),
        ...grpcEnvOf(meshProcess, settings),
        NATS_URL: natsUrlOf(meshProcess),
      }),
      host: settings.httpHost,
      onLine: (name, line) => options.onLine(name, line),
      onRestart: options.onNotice,
      startFirst: API_PROCESSES,
      onReady: (meshProcess, url) => {
        if (meshProcess.role === 'service') upstreams[meshProcess.service] = url;
        if (apiWaiting.delete(meshProcess.name) && apiWaiting.size === 0) options.onApiReady?.(entry.url);
      },
      readyTimeoutMs: options.readyTimeoutMs ?? 60_000,
      // A service force-exits at its own timeout; the extra second covers its last log line.
      stopTimeoutMs: settings.shutdownTimeoutMs + 1_000,
    });
  } catch (error) {
    await entry.close();
    await stopNats(nats);
    throw error;
  }

  return {
    entryUrl: entry.url,
    grpcAddress: `${settings.httpHost}:${settings.grpcPort}`,
    natsUrl: auth?.urlOf(MESH_OPERATOR_USER) ?? settings.natsUrl,
    // The nats-server it runs is supervised as the services are: one that keeps dying ends the mesh.
    mesh: nats ? { ...mesh, crashed: Promise.race([mesh.crashed, nats.crashed]) } : mesh,
    stop: async () => {
      await entry.close();
      const reports = await mesh.stop();
      await stopNats(nats);
      return reports;
    },
  };
}

/**
 * Settings only the registry may hold (the admin token, the job-token signing key): left out of
 * what every process gets, so a worker (which runs user code) never has them; `envOf` hands them
 * to the registry.
 */
export const REGISTRY_ONLY_SETTINGS = ['FLOWMESH_ADMIN_TOKEN', 'FLOWMESH_JOB_TOKEN_KEY'] as const;

function sharedEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const shared = { ...env };
  for (const name of REGISTRY_ONLY_SETTINGS) delete shared[name];
  return shared;
}

interface LocalNats {
  /** The nats-server this start runs, if any, restarted when it exits on its own. */
  readonly server?: ChildSupervisor;
  /** Its users, when it runs one that admits only them. */
  readonly auth?: LocalNatsAuth;
}

async function ensureInfrastructure(options: LocalMeshOptions): Promise<LocalNats> {
  const { settings } = options;
  const binary = findNatsServerBinary();
  if (!settings.natsUrlGiven && options.startNats && binary) return startAuthenticatedNats(options, binary);

  const problems = await checkInfrastructure(settings);
  const natsDown = problems.find((p) => p.dependency === 'nats');
  const postgresDown = problems.find((p) => p.dependency === 'postgres');
  if (postgresDown) throw new LocalMeshError(postgresDown.message);
  warnWithoutCredentials(options);
  if (!natsDown) return {};

  const address = localNatsAddress(settings.natsUrl);
  if (!binary && options.startNats)
    throw new LocalMeshError(`${natsDown.message}; no nats-server binary found: ${natsServerInstallHint()}`);
  if (!options.startNats || !address || !binary) throw new LocalMeshError(natsDown.message);
  const dataDir = join(options.workDir, '.flowmesh', 'nats');
  options.onNotice(
    `NATS is not running at ${settings.natsUrl}; starting ${binary} (JetStream data in ${dataDir})`,
  );
  try {
    return {
      server: await startSupervisedNats(options, {
        binary,
        ...address,
        dataDir,
        onLine: (line) => options.onLine('nats-server', line),
      }),
    };
  } catch (error) {
    throw new LocalMeshError(
      `${error instanceof Error ? error.message : String(error)}; ${natsDown.message}`,
    );
  }
}

/**
 * NATS_URL unset: a nats-server of this mesh's own, on its own port, that admits only the mesh's
 * users (a process each, and the CLI), each allowed only its service's subjects; so a script on
 * this machine cannot connect and read the mesh's tokens and secrets.
 */
async function startAuthenticatedNats(options: LocalMeshOptions, binary: string): Promise<LocalNats> {
  const { settings } = options;
  const host = '127.0.0.1';
  const port = settings.localNatsPort;
  const problems = await checkInfrastructure({ ...settings, natsUrl: `nats://${host}:${port}` });
  const postgresDown = problems.find((p) => p.dependency === 'postgres');
  if (postgresDown) throw new LocalMeshError(postgresDown.message);
  if (!problems.some((p) => p.dependency === 'nats')) {
    throw new LocalMeshError(
      `port ${port} (the mesh's nats-server) already in use; is a mesh already running? (flowmesh status), or set FLOWMESH_LOCAL_NATS_PORT`,
    );
  }
  const auth = await prepareLocalNatsAuth({
    workDir: options.workDir,
    prefix: settings.subjectPrefix,
    host,
    port,
  });
  const dataDir = join(options.workDir, '.flowmesh', 'nats');
  options.onNotice(
    `starting ${binary} on ${host}:${port} for this mesh only: a NATS user per process (in .flowmesh/nats-auth), JetStream data in ${dataDir}`,
  );
  try {
    const server = await startSupervisedNats(options, {
      binary,
      host,
      port,
      dataDir,
      configFile: auth.configFile,
      onLine: (line) => options.onLine('nats-server', line),
    });
    return { server, auth };
  } catch (error) {
    throw new LocalMeshError(error instanceof Error ? error.message : String(error));
  }
}

/** A NATS that takes anyone lets any local process read the mesh's traffic: say so once. */
function warnWithoutCredentials(options: LocalMeshOptions): void {
  const { natsUrl } = options.settings;
  if (natsUrl.split(',').some((url) => /\/\/[^/@]+@/.test(url))) return;
  options.onNotice(
    `NATS at ${redactUrl(natsUrl)} is used without credentials: if it admits anyone, any process on this machine can read the mesh's messages, tokens and secrets included (unset NATS_URL to let flowmesh start run a nats-server that admits only the mesh)`,
  );
}

/** The gRPC API is flow-orchestrator's (its service role): only it is told the port. */
function grpcEnvOf(meshProcess: MeshProcess, settings: CliSettings): NodeJS.ProcessEnv {
  const serves = meshProcess.service === 'flow-orchestrator' && meshProcess.role === 'service';
  return serves ? { FLOWMESH_GRPC_PORT: String(settings.grpcPort) } : {};
}

function portOf(meshProcess: MeshProcess, env: NodeJS.ProcessEnv): number {
  const configured = env[httpPortVariable(meshProcess.name)];
  return configured && /^\d+$/.test(configured) ? Number(configured) : meshProcess.defaultHttpPort;
}

async function findBusyPorts(ports: Record<string, number>, host: string): Promise<[string, number][]> {
  const entries = Object.entries(ports);
  const taken = await Promise.all(
    entries.map(([, port]) => tcpReachable(`http://${host}:${port}`, port, 500)),
  );
  return entries.filter((_, index) => taken[index]);
}

async function startSupervisedNats(
  options: LocalMeshOptions,
  nats: LocalNatsOptions,
): Promise<ChildSupervisor> {
  return superviseLocalNatsServer(await startLocalNatsServer(nats), nats, options.onNotice);
}

/** nats-server treats SIGINT as a clean stop (exit 0); SIGTERM makes it exit 1. */
async function stopNats(server: ChildSupervisor | undefined): Promise<void> {
  server?.stopRestarting();
  const child = server?.child;
  if (!child?.running) return;
  child.signal('SIGINT');
  await child.exited;
}
