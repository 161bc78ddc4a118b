import { randomBytes } from 'node:crypto';
import {
  createOrchestratorEventTriggersClient,
  createOrchestratorJobsClient,
  createRegistryItemsClient,
  isTerminalJobStatus,
  type EventTrigger,
  type EventTriggerKind,
  type JobSummary,
  type OrchestratorEventTriggersClient,
  type OrchestratorJobsClient,
  type RegistryItemsClient,
} from '@flowmesh/contracts';
import { connectMesh, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import { startMesh, startOwnProcess, waitFor, type OwnProcess, type TestMesh } from '@flowmesh/testing';

export const WORKSPACE = 'main';

/**
 * Event triggers' world on processes from the build: the registry, two orchestrator replicas
 * (service role) and a worker, an admin's token, and two scripts in Windmill's v2 format:
 * `u/admin/read_event` (a preprocessor returning what the event carries, `text` the payload
 * decoded) and `u/admin/decode` (no preprocessor: `payload`, decoded, is the result).
 */
export interface EventTriggerMesh {
  readonly mesh: TestMesh;
  readonly conn: MeshConnection;
  readonly jobs: OrchestratorJobsClient;
  readonly triggers: OrchestratorEventTriggersClient;
  readonly items: RegistryItemsClient;
  readonly actor: { token: string };
  /** The replicas, replaced in place when a test kills and restarts one. */
  readonly replicas: OwnProcess[];
  readonly worker: OwnProcess;
  /** The processes' last lines of output. */
  readonly output: string[];
  /** `/api/w/main/<route>` on the first replica, as the admin. */
  http(method: string, route: string, body?: unknown): Promise<{ status: number; text: string }>;
  trigger(kind: EventTriggerKind, path: string): Promise<EventTrigger>;
  untilState(
    kind: EventTriggerKind,
    path: string,
    state: EventTrigger['state'],
    timeoutMs?: number,
  ): Promise<EventTrigger>;
  runsOf(kind: EventTriggerKind, triggerPath: string): Promise<JobSummary[]>;
  /** Waits for at least `count` runs of the trigger, all ended. */
  endedRuns(kind: EventTriggerKind, triggerPath: string, count: number): Promise<JobSummary[]>;
  resultOf(id: string): Promise<unknown>;
  /** The results of `runs`, read one after the other (a burst of reads is no part of what is tested). */
  resultsOf(runs: readonly JobSummary[]): Promise<unknown[]>;
  /** SIGKILLs the replica that listens to the trigger: its server id and index in `replicas`. */
  killHolder(kind: EventTriggerKind, path: string): Promise<{ serverId: string; index: number }>;
  /** Starts a replica in place of the one at `index` (killed). */
  replace(index: number): Promise<void>;
  /** Waits for another replica than `serverId` to listen to the trigger. */
  untilMoved(kind: EventTriggerKind, path: string, serverId: string): Promise<EventTrigger>;
  stop(): Promise<void>;
}

const envOf = (adminToken: string) => ({
  FLOWMESH_ADMIN_TOKEN: adminToken,
  FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
  LOG_LEVEL: 'warn',
});

/** `orchestratorEnv`: settings of the orchestrator replicas over the test's own. */
export async function startEventTriggerMesh(
  options: { orchestratorEnv?: Record<string, string> } = {},
): Promise<EventTriggerMesh> {
  const adminToken = `fm_evt_${randomBytes(24).toString('base64url')}`;
  const env = { ...envOf(adminToken), ...options.orchestratorEnv };
  const mesh = await startMesh({ processes: ['resource-registry'], env, readyTimeoutMs: 150_000 });
  const output: string[] = [];
  const keep = (line: string) => {
    output.push(line);
    if (output.length > 400) output.shift();
  };
  let replicas: OwnProcess[] = [];
  let worker: OwnProcess | undefined;
  try {
    [replicas[0], replicas[1], worker] = await Promise.all([
      startOwnProcess(mesh, 'flow-orchestrator', env, keep),
      startOwnProcess(mesh, 'flow-orchestrator', env, keep),
      startOwnProcess(mesh, 'flow-orchestrator-worker', env, keep),
    ]);
  } catch (error) {
    await Promise.allSettled([...replicas.map((p) => p?.stop()), worker?.stop()]);
    await mesh.stop().catch(() => undefined);
    throw error;
  }
  replicas = [...replicas];
  const conn = await connectMesh({
    url: mesh.env.NATS_URL,
    name: 'event-triggers',
    prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
  });
  const client = new MeshClient(conn);
  const actor = { token: adminToken };
  const items = createRegistryItemsClient(client);
  const jobs = createOrchestratorJobsClient(client);
  const triggers = createOrchestratorEventTriggersClient(client);
  const inMain = { actor, workspace: WORKSPACE };
  await items.createScript({
    ...inMain,
    path: 'u/admin/read_event',
    summary: 'reads the event',
    language: 'bun',
    content: [
      'export function preprocessor(event: any) {',
      '  const { payload, ...rest } = event;',
      '  return { seen: { ...rest, text: atob(payload) } };',
      '}',
      'export async function main(seen: unknown) { return seen; }',
    ].join('\n'),
  });
  await items.createScript({
    ...inMain,
    path: 'u/admin/decode',
    summary: 'decodes the payload',
    language: 'bun',
    content: 'export async function main(payload: string) { return atob(payload); }',
  });

  const withOutput = (error: unknown): never => {
    throw new Error(`${(error as Error).message}; last output:\n${output.slice(-30).join('\n')}`);
  };
  const trigger = (kind: EventTriggerKind, path: string) =>
    triggers.get({ actor, workspace: WORKSPACE, kind, path });
  const runsOf = async (kind: EventTriggerKind, triggerPath: string) => {
    const { jobs: listed } = await jobs.list({ actor, workspace: WORKSPACE, limit: 1_000 });
    return listed.filter((job) => job.trigger_kind === kind && job.trigger === triggerPath);
  };
  const world: EventTriggerMesh = {
    mesh,
    conn,
    jobs,
    triggers,
    items,
    actor,
    replicas,
    worker,
    output,
    async http(method, route, body) {
      const response = await fetch(`${replicas[0].url}/api/w/${WORKSPACE}/${route}`, {
        method,
        headers: {
          authorization: `Bearer ${adminToken}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, text: await response.text() };
    },
    trigger,
    untilState: (kind, path, state, timeoutMs = 60_000) =>
      waitFor(
        async () => {
          const current = await trigger(kind, path);
          return current.state === state ? current : undefined;
        },
        { timeoutMs, intervalMs: 100, description: `${kind} trigger ${path} to be ${state}` },
      ).catch(withOutput),
    runsOf,
    endedRuns: (kind, triggerPath, count) =>
      waitFor(
        async () => {
          const runs = await runsOf(kind, triggerPath);
          return runs.length >= count && runs.every((job) => isTerminalJobStatus(job.status))
            ? runs
            : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 200, description: `${count} ended runs of ${triggerPath}` },
      ).catch(withOutput),
    resultOf: async (id) => (await jobs.get({ actor, workspace: WORKSPACE, id }).catch(withOutput)).result,
    async resultsOf(runs) {
      const results: unknown[] = [];
      for (const run of runs) results.push(await world.resultOf(run.id));
      return results;
    },
    async killHolder(kind, path) {
      const holder = (await trigger(kind, path)).server_id;
      const index = replicas.findIndex((p) => holder?.endsWith(`:${p.pid}`));
      if (!holder || index < 0) throw new Error(`no replica of this test listens to ${path} (${holder})`);
      await replicas[index].kill();
      return { serverId: holder, index };
    },
    async replace(index) {
      replicas[index] = await startOwnProcess(mesh, 'flow-orchestrator', env, keep);
    },
    untilMoved: (kind, path, serverId) =>
      waitFor(
        async () => {
          const current = await trigger(kind, path);
          return current.state === 'listening' && current.server_id !== serverId ? current : undefined;
        },
        {
          timeoutMs: 30_000,
          intervalMs: 100,
          description: `${kind} trigger ${path} to move to another replica`,
        },
      ).catch(withOutput),
    async stop() {
      await conn.drain().catch(() => undefined);
      await Promise.allSettled([...replicas.map((p) => p.stop()), worker.stop()]);
      await mesh.stop();
    },
  };
  return world;
}
