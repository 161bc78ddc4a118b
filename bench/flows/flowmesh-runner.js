import { randomBytes } from 'node:crypto';
import { createOrchestratorJobsClient, jobEvents } from '@flowmesh/contracts';
import { connectMesh, MeshClient } from '@flowmesh/messaging';
import { startMesh } from '@flowmesh/testing';

const WORKSPACE = 'main';

process.env.NATS_URL ??= 'nats://127.0.0.1:4222';
process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
// `npm run build` comes first (README); the mesh runs the build output as it is.
process.env.FLOWMESH_SKIP_BUILD ??= '1';

/**
 * A flow of `steps` trivial TypeScript steps (or steps of `content`), each adding one to the
 * previous result (`next`: what a step after the first is given, `previous_result` by default).
 */
export function chainFlow(
  steps,
  content = 'export function main(x: number) { return x + 1; }',
  next = 'previous_result',
) {
  return {
    summary: `${steps} steps`,
    value: {
      modules: Array.from({ length: steps }, (_, i) => ({
        id: `s${i + 1}`,
        value: {
          type: 'rawscript',
          language: 'bun',
          content,
          input_transforms: {
            x: { type: 'javascript', expr: i === 0 ? 'flow_input.n' : next },
          },
        },
      })),
    },
  };
}

const FLOW_PROCESSES = ['resource-registry', 'flow-orchestrator', 'flow-orchestrator-worker'];

/**
 * The flowmesh side: registry, orchestrator and worker (or `processes`) as their own processes
 * (the build output, as `npm start` runs them) on a fresh prefix and database; flows submitted
 * over NATS, their end seen on the `job completed` event.
 */
export async function startFlowmesh({ processes = FLOW_PROCESSES, env = {} } = {}) {
  const adminToken = `fm_bench_${randomBytes(24).toString('base64url')}`;
  const mesh = await startMesh({
    processes,
    env: {
      FLOWMESH_ADMIN_TOKEN: adminToken,
      FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
      LOG_LEVEL: 'warn',
      ...env,
    },
    readyTimeoutMs: 120_000,
  });
  const conn = await connectMesh({
    url: mesh.env.NATS_URL,
    name: 'bench-flows',
    prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
  });
  const client = new MeshClient(conn);
  const jobs = createOrchestratorJobsClient(client);
  const actor = { token: adminToken };
  const waiting = new Map();
  const early = new Map();
  const subscription = conn.nc.subscribe(conn.space.subject(jobEvents.completed.subject), {
    callback: (error, message) => {
      if (error) return;
      const at = performance.now();
      const event = message.json();
      const waiter = waiting.get(event.job_id);
      if (waiter) {
        waiting.delete(event.job_id);
        waiter({ at, event });
      } else early.set(event.job_id, { at, event });
    },
  });
  const ended = (id) =>
    new Promise((resolve) => {
      const seen = early.get(id);
      if (seen) {
        early.delete(id);
        resolve(seen);
      } else waiting.set(id, resolve);
    });

  return {
    /**
     * Runs one flow (a flow value, or `{ path }` of a saved one); resolves with the wall time from
     * request to the completion event.
     */
    async run(flow, args) {
      const started = performance.now();
      const which = typeof flow.path === 'string' ? { path: flow.path } : { value: flow };
      const { job_id } = await jobs.runFlow({ actor, workspace: WORKSPACE, ...which, args });
      const { at, event } = await ended(job_id);
      if (!event.success) {
        const job = await jobs.get({ actor, workspace: WORKSPACE, id: job_id });
        throw new Error(`flow ${job_id} ${job.status}: ${JSON.stringify(job.result)}`);
      }
      return { id: job_id, ms: at - started };
    },
    get: (id) => jobs.get({ actor, workspace: WORKSPACE, id }),
    getResult: (id) => jobs.getResult({ actor, workspace: WORKSPACE, id }),
    /** The mesh's typed clients are built on this, as the admin (`actor`). */
    client,
    actor,
    /** The mesh's database URL and subject prefix. */
    databaseUrl: mesh.env.DATABASE_URL,
    /** The pid of each process of the mesh, by process name (`agent-runtime`). */
    pidOf: (name) => mesh.running.processes.find((running) => running.name === name)?.pid,
    subjectPrefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    /** Gaps between one step's end and the next one's start, from the step jobs' timestamps. */
    async stepGaps(flowJobId) {
      const { jobs: children } = await jobs.list({
        actor,
        workspace: WORKSPACE,
        root_job: flowJobId,
        include_children: true,
        limit: 1000,
      });
      const steps = children
        .filter(
          (job) =>
            job.id !== flowJobId &&
            job.started_at &&
            job.completed_at &&
            /^s\d+$/.test(job.flow_step_id ?? ''),
        )
        .sort((a, b) => Number(a.flow_step_id.slice(1)) - Number(b.flow_step_id.slice(1)));
      const gaps = [];
      for (let i = 1; i < steps.length; i++)
        gaps.push(isoMs(steps[i].started_at) - isoMs(steps[i - 1].completed_at));
      return gaps;
    },
    async stop() {
      subscription.unsubscribe();
      await conn.drain();
      await mesh.stop();
    },
  };
}

/** An ISO timestamp in ms, keeping sub-millisecond digits (Date.parse drops them). */
export function isoMs(iso) {
  const match = /^(.*?)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)$/.exec(iso);
  if (!match) return Date.parse(iso);
  const whole = Date.parse(`${match[1]}${match[3]}`);
  return whole + (match[2] ? Number(`0.${match[2]}`) * 1000 : 0);
}
