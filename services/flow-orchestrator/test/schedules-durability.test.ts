import { randomBytes } from 'node:crypto';
import {
  createOrchestratorJobsClient,
  createOrchestratorSchedulesClient,
  createRegistryItemsClient,
  isTerminalJobStatus,
  type JobSummary,
  type OrchestratorJobsClient,
  type OrchestratorSchedulesClient,
} from '@flowmesh/contracts';
import { connectMesh, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import { startMesh, startOwnProcess, waitFor, type OwnProcess, type TestMesh } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Schedules on processes from the build, killed for real: two orchestrator replicas (service
 * role) and a worker over the registry. A replica SIGKILLed around a tick loses no tick and
 * doubles none; the whole orchestrator stopped across ticks then restarted behaves as Windmill
 * does: the first missed tick runs once, late, and the schedule goes on from now (no burst of the
 * ticks in between).
 */
const WORKSPACE = 'main';
const FLOW = 'u/admin/beat';

interface Harness {
  mesh: TestMesh;
  conn: MeshConnection;
  jobs: OrchestratorJobsClient;
  schedules: OrchestratorSchedulesClient;
  actor: { token: string };
  replicas: OwnProcess[];
  worker: OwnProcess;
  output: string[];
}

let h: Harness | undefined;
const env = (adminToken: string) => ({
  FLOWMESH_ADMIN_TOKEN: adminToken,
  FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
  LOG_LEVEL: 'warn',
  // A run in flight on a killed worker goes to its replacement after 4 s, not 15.
  FLOWMESH_WORK_ACK_WAIT_MS: '8000',
});

beforeAll(async () => {
  const adminToken = `fm_sched_${randomBytes(24).toString('base64url')}`;
  const mesh = await startMesh({
    processes: ['resource-registry'],
    env: env(adminToken),
    readyTimeoutMs: 150_000,
  });
  const output: string[] = [];
  const keep = (line: string) => {
    output.push(line);
    if (output.length > 400) output.shift();
  };
  try {
    const [a, b, worker] = await Promise.all([
      startOwnProcess(mesh, 'flow-orchestrator', env(adminToken), keep),
      startOwnProcess(mesh, 'flow-orchestrator', env(adminToken), keep),
      startOwnProcess(mesh, 'flow-orchestrator-worker', env(adminToken), keep),
    ]);
    const conn = await connectMesh({
      url: mesh.env.NATS_URL,
      name: 'schedules',
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    });
    const client = new MeshClient(conn);
    const actor = { token: adminToken };
    await createRegistryItemsClient(client).createFlow({
      actor,
      workspace: WORKSPACE,
      path: FLOW,
      summary: 'beat',
      value: { modules: [{ id: 'a', value: { type: 'identity' } }] },
    });
    h = {
      mesh,
      conn,
      jobs: createOrchestratorJobsClient(client),
      schedules: createOrchestratorSchedulesClient(client),
      actor,
      replicas: [a, b],
      worker,
      output,
    };
  } catch (error) {
    await mesh.stop().catch(() => undefined);
    throw error;
  }
}, 240_000);

afterAll(async () => {
  if (!h) return;
  await h.conn.drain().catch(() => undefined);
  await Promise.allSettled([...h.replicas.map((p) => p.stop()), h.worker.stop()]);
  await h.mesh.stop();
}, 180_000);

function harness(): Harness {
  if (!h) throw new Error('the mesh did not start');
  return h;
}

async function runsOf(schedule: string): Promise<JobSummary[]> {
  const { jobs, actor } = harness();
  const { jobs: listed } = await jobs.list({ actor, workspace: WORKSPACE, path: FLOW, limit: 1_000 });
  return listed.filter((job) => job.trigger === schedule && job.status !== 'cancelled');
}

async function endedRuns(schedule: string, atLeast: number, description: string): Promise<JobSummary[]> {
  return waitFor(
    async () => {
      const runs = await runsOf(schedule);
      return runs.filter((job) => isTerminalJobStatus(job.status)).length >= atLeast ? runs : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 200, description },
  ).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}; last output:\n${harness().output.slice(-30).join('\n')}`);
  });
}

async function stopSchedule(schedule: string): Promise<JobSummary[]> {
  const { schedules, actor } = harness();
  await schedules.setEnabled({ actor, workspace: WORKSPACE, path: schedule, enabled: false });
  const runs = await waitFor(
    async () => {
      const all = await runsOf(schedule);
      return all.every((job) => isTerminalJobStatus(job.status)) ? all : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 200, description: `every run of ${schedule} to end` },
  );
  return runs.sort((x, y) => tickOf(x) - tickOf(y));
}

const tickOf = (job: JobSummary) => Date.parse(job.scheduled_for!);
const untilMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

describe('schedules across processes', () => {
  it('loses and doubles no tick when a replica is SIGKILLed at a tick', async () => {
    const { schedules, actor, mesh, output } = harness();
    await schedules.create({
      actor,
      workspace: WORKSPACE,
      path: 'u/admin/kill',
      schedule: '* * * * * *',
      timezone: 'UTC',
      script_path: FLOW,
      is_flow: true,
    });
    await endedRuns('u/admin/kill', 2, 'two runs before the kills');
    // Each replica in turn, killed as it may be firing: a run is started a second ahead of its
    // tick, on the poll after the second turns, so kill just after it turns; then replaced.
    for (const index of [0, 1, 0]) {
      await untilMs(1_000 - (Date.now() % 1_000) + 5 + index * 40);
      await harness().replicas[index].kill();
      harness().replicas[index] = await startOwnProcess(mesh, 'flow-orchestrator', env(actor.token), (line) =>
        output.push(line),
      );
    }
    const before = (await runsOf('u/admin/kill')).length;
    await endedRuns('u/admin/kill', before + 2, 'two runs after the kills');
    const runs = await stopSchedule('u/admin/kill');
    const ticks = runs.map(tickOf);
    expect(new Set(ticks).size).toBe(ticks.length);
    // No tick lost between the first run and the last: the other replica fired while one was down.
    expect((ticks.at(-1)! - ticks[0]) / 1_000 + 1).toBe(ticks.length);
    expect(runs.every((job) => job.status === 'completed')).toBe(true);
  });

  it('after the orchestrator was down across ticks, runs the first missed tick once, late, then goes on from now', async () => {
    const { schedules, actor, mesh, output } = harness();
    await schedules.create({
      actor,
      workspace: WORKSPACE,
      path: 'u/admin/gap',
      schedule: '* * * * * *',
      timezone: 'UTC',
      script_path: FLOW,
      is_flow: true,
    });
    await endedRuns('u/admin/gap', 2, 'two runs before the stop');
    // Every orchestrator process down (both replicas and the worker) for about 6 ticks.
    const stoppedAt = Date.now();
    await Promise.all([...harness().replicas.map((p) => p.kill()), harness().worker.kill()]);
    await untilMs(6_000 - (Date.now() - stoppedAt));
    const restartedAt = Date.now();
    const restart = (name: string) =>
      startOwnProcess(mesh, name, env(actor.token), (line) => output.push(line));
    const [replica, worker] = await Promise.all([
      restart('flow-orchestrator'),
      restart('flow-orchestrator-worker'),
    ]);
    const readyAt = Date.now();
    harness().replicas = [replica];
    harness().worker = worker;
    const before = (await runsOf('u/admin/gap')).length;
    // The missed tick's run and three after it (`before` may or may not hold the missed one yet).
    await endedRuns('u/admin/gap', before + 4, 'runs after the restart');
    const runs = await stopSchedule('u/admin/gap');
    const ticks = runs.map(tickOf);
    expect(new Set(ticks).size).toBe(ticks.length);
    expect(runs.every((job) => job.status === 'completed')).toBe(true);
    // The ticks that came while everything was down: one run among them, started after the restart.
    const missed = runs.filter((job) => tickOf(job) > stoppedAt && tickOf(job) < restartedAt);
    const shown = runs
      .map((job) => `tick ${tickOf(job) - stoppedAt} started ${Date.parse(job.started_at!) - stoppedAt}`)
      .join('; ');
    expect(missed, `ms from the stop (restart at ${restartedAt - stoppedAt}): ${shown}`).toHaveLength(1);
    expect(Date.parse(missed[0].started_at!)).toBeGreaterThanOrEqual(restartedAt);
    // No burst: the next run is for a tick after the restart, and on from there each tick once.
    const after = runs.filter((job) => tickOf(job) > tickOf(missed[0]));
    expect(after.length).toBeGreaterThanOrEqual(3);
    expect(tickOf(after[0])).toBeGreaterThanOrEqual(readyAt - 2_000);
    const afterTicks = after.map(tickOf);
    expect((afterTicks.at(-1)! - afterTicks[0]) / 1_000 + 1).toBe(afterTicks.length);
    // The restarted replica counted its fires and their lateness, by trigger kind only.
    const metrics = await (await fetch(`${replica.url}/metrics`)).text();
    expect(metrics).toMatch(/^flowmesh_trigger_fires_total\{kind="schedule"[^}]*\} [1-9]/m);
    expect(metrics).toMatch(/^flowmesh_trigger_fire_lateness_seconds_count\{kind="schedule"[^}]*\} [1-9]/m);
    expect(metrics).not.toMatch(/flowmesh_trigger_[a-z_]+\{[^}]*path=/);
  });
});
