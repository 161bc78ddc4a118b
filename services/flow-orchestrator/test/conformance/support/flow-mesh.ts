import { randomBytes } from 'node:crypto';
import {
  createOrchestratorJobsClient,
  createRegistryIdentityClient,
  createRegistryItemsClient,
  isTerminalJobStatus,
  jobEvents,
  type Job,
  type OrchestratorJobsClient,
  type RegistryIdentityClient,
  type RegistryItemsClient,
} from '@flowmesh/contracts';
import { connectMesh, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import { startMesh, type StartMeshOptions, type TestMesh } from '@flowmesh/testing';
import type { ActorName } from './flow-case.js';

export const WORKSPACE = 'main';
/** Worker tags the conformance worker serves (cases route steps to the extra two). */
export const WORKER_TAGS = 'default,flow,conformance,conformance-other';

export interface Actor {
  readonly token: string;
  readonly username: string;
}

export interface FlowMesh {
  readonly mesh: TestMesh;
  readonly conn: MeshConnection;
  readonly client: MeshClient;
  readonly jobs: OrchestratorJobsClient;
  readonly items: RegistryItemsClient;
  readonly identity: RegistryIdentityClient;
  readonly actors: Readonly<Record<ActorName, Actor>>;
  readonly registryUrl: string;
  readonly orchestratorUrl: string;
  /** The job once it reached a terminal status (cancelled, failed or completed). */
  waitForEnd(id: string, timeoutMs: number, as?: ActorName): Promise<Job>;
  getJob(id: string, as?: ActorName): Promise<Job>;
  stop(): Promise<void>;
}

export interface StartFlowMeshOptions {
  readonly processes?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly mesh?: Partial<StartMeshOptions>;
}

/**
 * "A running mesh for flows": resource-registry, flow-orchestrator and its worker as processes
 * on a fresh prefix and database, the admin plus members `alice` (group `approvers`) and `bob`
 * (group `reviewers`), both readers of folder `conformance`, and typed clients beside it.
 */
export async function startFlowMesh(options: StartFlowMeshOptions = {}): Promise<FlowMesh> {
  const adminToken = `fm_conf_${randomBytes(24).toString('base64url')}`;
  const mesh = await startMesh({
    processes: options.processes ?? ['resource-registry', 'flow-orchestrator', 'flow-orchestrator-worker'],
    env: {
      FLOWMESH_ADMIN_TOKEN: adminToken,
      FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
      FLOWMESH_WORKER_TAGS: WORKER_TAGS,
      LOG_LEVEL: process.env.DEBUG_MESH === '1' ? 'info' : 'warn',
      ...options.env,
    },
    readyTimeoutMs: 150_000,
    ...options.mesh,
  });
  let conn: MeshConnection | undefined;
  try {
    conn = await connectMesh({
      url: mesh.env.NATS_URL,
      name: 'conformance',
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    });
    const client = new MeshClient(conn);
    const identity = createRegistryIdentityClient(client);
    const items = createRegistryItemsClient(client);
    const jobs = createOrchestratorJobsClient(client);
    const admin = { token: adminToken };
    const member = async (username: string): Promise<Actor> => {
      await identity.addUser({
        actor: admin,
        workspace: WORKSPACE,
        email: `${username}@example.test`,
        username,
        isAdmin: false,
      });
      const { token } = await identity.createApiToken({
        actor: admin,
        workspace: WORKSPACE,
        username,
        label: 'conformance',
      });
      return { token, username };
    };
    const [alice, bob] = await Promise.all([member('alice'), member('bob')]);
    for (const [group, username] of [
      ['approvers', 'alice'],
      ['reviewers', 'bob'],
    ] as const) {
      await identity.createGroup({ actor: admin, workspace: WORKSPACE, name: group });
      await identity.addGroupMember({ actor: admin, workspace: WORKSPACE, name: group, username });
    }
    await identity.createFolder({
      actor: admin,
      workspace: WORKSPACE,
      name: 'conformance',
      readers: ['u/alice', 'u/bob'],
    });
    const actors: Record<ActorName, Actor> = { admin: { token: adminToken, username: 'admin' }, alice, bob };
    const url = (name: string) => {
      const found = mesh.urls[name];
      if (!found) throw new Error(`the mesh has no ${name}`);
      return found;
    };
    const waiter = new JobWaiter(conn, (id, as) =>
      jobs.get({ actor: { token: actors[as].token }, workspace: WORKSPACE, id }),
    );
    return {
      mesh,
      conn,
      client,
      jobs,
      items,
      identity,
      actors,
      registryUrl: url('resource-registry'),
      orchestratorUrl: mesh.urls['flow-orchestrator'] ?? '',
      waitForEnd: (id, timeoutMs, as = 'admin') => waiter.wait(id, timeoutMs, as),
      getJob: (id, as = 'admin') =>
        jobs.get({ actor: { token: actors[as].token }, workspace: WORKSPACE, id }),
      stop: async () => {
        waiter.close();
        await conn?.drain();
        await mesh.stop();
      },
    };
  } catch (error) {
    await conn?.drain().catch(() => undefined);
    await mesh.stop().catch(() => undefined);
    throw error;
  }
}

/**
 * Waits for jobs to end without polling hard: a `job completed` event (core NATS, published with
 * the outbox) wakes the waiter at once; a slow poll of `job.get` covers a step or a missed event.
 */
class JobWaiter {
  private readonly wakers = new Map<string, Set<() => void>>();
  private readonly subscription;

  constructor(
    conn: MeshConnection,
    private readonly get: (id: string, as: ActorName) => Promise<Job>,
  ) {
    this.subscription = conn.nc.subscribe(conn.space.subject(jobEvents.completed.subject), {
      callback: (error, message) => {
        if (error) return;
        try {
          const event = message.json<{ job_id?: string }>();
          if (event.job_id) for (const wake of this.wakers.get(event.job_id) ?? []) wake();
        } catch {
          // Not ours to judge here; the poll still sees the job end.
        }
      },
    });
  }

  async wait(id: string, timeoutMs: number, as: ActorName): Promise<Job> {
    const deadline = Date.now() + timeoutMs;
    let last: Job | undefined;
    for (;;) {
      last = await this.get(id, as);
      if (isTerminalJobStatus(last.status)) return last;
      const remaining = deadline - Date.now();
      if (remaining <= 0)
        throw new Error(
          `job ${id} did not end within ${timeoutMs} ms (status ${last.status}, flow_status ${JSON.stringify(last.flow_status)})`,
        );
      await this.nap(id, Math.min(remaining, 1_000));
    }
  }

  private nap(id: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const set = this.wakers.get(id) ?? new Set();
      this.wakers.set(id, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0) this.wakers.delete(id);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  close(): void {
    this.subscription.unsubscribe();
  }
}
