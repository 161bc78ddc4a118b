// The flowmesh side of the triggers benchmark: the real mesh (registry, orchestrator, its worker)
// as separate processes from the build output, as bench/flows starts it, plus what this bench
// needs beside bench/flows' runner: the orchestrator's HTTP base URL (webhooks, the schedule
// API), the registry's items client (saved flows and scripts) and the mesh's database URL.
import { randomBytes } from 'node:crypto';
import {
  createOrchestratorJobsClient,
  createRegistryIdentityClient,
  createRegistryItemsClient,
  jobEvents,
} from '@flowmesh/contracts';
import { connectMesh, MeshClient } from '@flowmesh/messaging';
import { startMesh } from '@flowmesh/testing';

export const WORKSPACE = 'main';

process.env.NATS_URL ??= 'nats://127.0.0.1:4222';
process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
// `npm run build` comes first (README); the mesh runs the build output as it is.
process.env.FLOWMESH_SKIP_BUILD ??= '1';

const PROCESSES = ['resource-registry', 'flow-orchestrator', 'flow-orchestrator-worker'];

/**
 * Starts the mesh on a fresh prefix and database; `env` goes to every process. Answers with an
 * HTTP helper for the orchestrator's `/api/w/main/...` routes as the admin, the typed clients and
 * `stop()` (which drops the database and the streams).
 */
export async function startTriggersMesh({ env = {} } = {}) {
  const adminToken = `fm_bench_${randomBytes(24).toString('base64url')}`;
  const mesh = await startMesh({
    processes: PROCESSES,
    env: {
      FLOWMESH_ADMIN_TOKEN: adminToken,
      FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
      LOG_LEVEL: 'warn',
      ...env,
    },
    readyTimeoutMs: 120_000,
  });
  let conn;
  try {
    conn = await connectMesh({
      url: mesh.env.NATS_URL,
      name: 'bench-triggers',
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    });
  } catch (error) {
    await mesh.stop().catch(() => undefined);
    throw error;
  }
  const client = new MeshClient(conn);
  // Runs' ends, from the `job completed` events (as bench/flows' runner), once `watchEnds()`
  // subscribed (the schedule part does not: a thousand events a second would load this process):
  // `ended(id)` resolves with the event, whether it came before or after the call.
  const waiting = new Map();
  const early = new Map();
  let subscription;
  const watchEnds = () => {
    subscription ??= conn.nc.subscribe(conn.space.subject(jobEvents.completed.subject), {
      callback: (error, message) => {
        if (error) return;
        const event = message.json();
        const waiter = waiting.get(event.job_id);
        if (waiter) {
          waiting.delete(event.job_id);
          waiter(event);
        } else early.set(event.job_id, event);
      },
    });
    return conn.nc.flush();
  };
  const unwatchEnds = () => {
    subscription?.unsubscribe();
    subscription = undefined;
    early.clear();
  };
  const ended = (id) =>
    new Promise((resolve) => {
      if (!subscription) throw new Error('ended() needs watchEnds() first');
      const seen = early.get(id);
      if (seen) {
        early.delete(id);
        resolve(seen);
      } else waiting.set(id, resolve);
    });
  const actor = { token: adminToken };
  const base = `${mesh.urls['flow-orchestrator']}/api/w/${WORKSPACE}/`;
  const authorization = `Bearer ${adminToken}`;

  /** `fetch` to `<orchestrator>/api/w/main/<route>` as the admin; answers status and text. */
  async function http(method, route, body) {
    const headers = { authorization };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(base + route, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, text: await response.text() };
  }

  return {
    http,
    /** The orchestrator's base URL for the workspace's routes (`.../api/w/main/`) and the admin's header. */
    base,
    authorization,
    actor,
    inMain: { actor, workspace: WORKSPACE },
    items: createRegistryItemsClient(client),
    identity: createRegistryIdentityClient(client),
    jobs: createOrchestratorJobsClient(client),
    client,
    /** Subscribes to runs' ends (before the runs start); resolves once the server has the subscription. */
    watchEnds,
    /** Ends the subscription (before a throughput run: the events would load this process). */
    unwatchEnds,
    /** Resolves with the `job completed` event of a job (a flow's root job among them). */
    ended,
    databaseUrl: mesh.env.DATABASE_URL,
    pidOf: (name) => mesh.running.processes.find((running) => running.name === name)?.pid,
    logs: (name) => mesh.logs(name),
    async stop() {
      unwatchEnds();
      await conn.drain().catch(() => undefined);
      await mesh.stop();
    },
  };
}
