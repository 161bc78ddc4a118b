import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createOrchestratorJobsClient,
  isTerminalJobStatus,
  type Job,
  type OrchestratorJobsClient,
} from '@flowmesh/contracts';
import { connectMesh, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import {
  startMesh,
  startOwnProcess,
  waitFor,
  type OwnProcess,
  type TestMesh,
  scriptScratchDir,
} from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Processes killed with SIGKILL mid-flow. The flows' steps append a line to a file when they
 * start and when they end, so a step run twice shows. The scheduler (the worker that drives
 * flows, tag `flow`) and the script worker (tag `default`) are separate processes here, so each
 * can be killed on its own; a third case has one worker doing both.
 */
const ENV = { FLOWMESH_WORK_ACK_WAIT_MS: '3000', FLOWMESH_TIMER_POLL_MS: '100', LOG_LEVEL: 'warn' };

function step(id: string, dir: string, ms: number): Record<string, unknown> {
  return {
    id,
    value: {
      type: 'rawscript',
      language: 'bun',
      content: [
        "import { appendFileSync } from 'node:fs';",
        'export async function main(x: number) {',
        `  appendFileSync('${dir}/effects', '${id} start\\n');`,
        `  await new Promise((resolve) => setTimeout(resolve, ${ms}));`,
        `  appendFileSync('${dir}/effects', '${id} end\\n');`,
        '  return x + 1;',
        '}',
      ].join('\n'),
      input_transforms: { x: { type: 'javascript', expr: 'previous_result.x ?? previous_result' } },
    },
  };
}

describe('SIGKILL mid-flow', () => {
  let mesh: TestMesh;
  let conn: MeshConnection;
  let jobs: OrchestratorJobsClient;
  let api: OwnProcess;
  const own: OwnProcess[] = [];
  const actor = { token: `fm_restart_${randomBytes(24).toString('base64url')}` };

  const output: string[] = [];
  const keep = (line: string) => {
    output.push(line);
    if (output.length > 300) output.shift();
  };
  const start = async (tags: string) => {
    const process = await startOwnProcess(
      mesh,
      'flow-orchestrator-worker',
      { ...ENV, FLOWMESH_WORKER_TAGS: tags },
      keep,
    );
    own.push(process);
    return process;
  };
  const run = async (dir: string, steps: Array<[string, number]>) =>
    (
      await jobs.runFlow({
        actor,
        workspace: 'main',
        value: { modules: steps.map(([id, ms]) => step(id, dir, ms)) },
        args: { x: 0 },
      })
    ).job_id;
  /**
   * The flow's status, as committed, shows its first `steps` steps done. A flow may run one step
   * ahead of its commits (FlowStateStore.saveInBackground): a step that ended within that window
   * (milliseconds) may run again after a crash; one whose end is committed never does, which is
   * what these tests kill after.
   */
  const committed = (id: string, steps: number) =>
    waitFor(
      async () => {
        const job = await jobs.get({ actor, workspace: 'main', id });
        const modules = job.flow_status?.modules ?? [];
        return modules.slice(0, steps).every((module) => module.type === 'Success') || undefined;
      },
      {
        timeoutMs: 30_000,
        intervalMs: 20,
        description: `flow ${id}'s first ${steps} step(s) to be committed`,
      },
    );
  const ended = (id: string) =>
    waitFor(
      async () => {
        const job = await jobs.get({ actor, workspace: 'main', id });
        return isTerminalJobStatus(job.status) ? job : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, description: `flow ${id} to end` },
    ).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; last output:\n${output.slice(-40).join('\n')}`);
    });
  const effects = (dir: string) =>
    existsSync(join(dir, 'effects')) ? readFileSync(join(dir, 'effects'), 'utf8').trim().split('\n') : [];
  const started = (dir: string, id: string) =>
    waitFor(() => effects(dir).includes(`${id} start`), {
      timeoutMs: 30_000,
      description: `step ${id} to start`,
    });
  const count = (dir: string, line: string) => effects(dir).filter((l) => l === line).length;

  beforeAll(async () => {
    const env = {
      FLOWMESH_ADMIN_TOKEN: actor.token,
      FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
      LOG_LEVEL: 'warn',
    };
    mesh = await startMesh({ processes: ['resource-registry'], env });
    api = await startOwnProcess(mesh, 'flow-orchestrator', ENV);
    conn = await connectMesh({
      url: mesh.env.NATS_URL,
      name: 'restarts',
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    });
    jobs = createOrchestratorJobsClient(new MeshClient(conn));
  }, 180_000);

  afterAll(async () => {
    await conn?.drain().catch(() => undefined);
    await Promise.allSettled([api, ...own].map((process) => process?.stop()));
    await mesh?.stop();
  }, 180_000);

  it('a script worker killed mid-step: the step runs again elsewhere, the steps done before it never do', async () => {
    const scheduler = await start('flow');
    let worker = await start('default');
    const dir = scriptScratchDir('fm-kill-worker-');
    const id = await run(dir, [
      ['s1', 10],
      ['s2', 2_000],
      ['s3', 10],
    ]);
    await started(dir, 's2');
    await committed(id, 1);
    await worker.kill();
    worker = await start('default');
    const job: Job = await ended(id);
    expect([job.status, job.result]).toEqual(['completed', 3]);
    expect(effects(dir).filter((line) => line.startsWith('s1') || line.startsWith('s3'))).toEqual([
      's1 start',
      's1 end',
      's3 start',
      's3 end',
    ]);
    expect([count(dir, 's2 start'), count(dir, 's2 end')]).toEqual([2, 1]);
    await Promise.all([scheduler.stop(), worker.stop()]);
  }, 120_000);

  it('the scheduler killed while a step runs: a new one continues the flow from its flow_status', async () => {
    let scheduler = await start('flow');
    const worker = await start('default');
    const dir = scriptScratchDir('fm-kill-scheduler-');
    const id = await run(dir, [
      ['s1', 10],
      ['s2', 1_500],
      ['s3', 10],
    ]);
    await started(dir, 's2');
    await committed(id, 1);
    await scheduler.kill();
    // s2 ends and wakes its flow while no scheduler runs; the wake-up waits in the work stream.
    await waitFor(() => effects(dir).includes('s2 end'), { timeoutMs: 30_000, description: 's2 to end' });
    scheduler = await start('flow');
    const job = await ended(id);
    expect([job.status, job.result]).toEqual(['completed', 3]);
    expect(effects(dir)).toEqual(['s1 start', 's1 end', 's2 start', 's2 end', 's3 start', 's3 end']);
    await Promise.all([scheduler.stop(), worker.stop()]);
  }, 120_000);

  it('one worker that drives and runs, killed mid-step: the flow resumes from its last committed step', async () => {
    let worker = await start('default,flow');
    const dir = scriptScratchDir('fm-kill-both-');
    const id = await run(dir, [
      ['s1', 10],
      ['s2', 10],
      ['s3', 3_000],
      ['s4', 10],
    ]);
    await started(dir, 's3');
    await committed(id, 2);
    await worker.kill();
    worker = await start('default,flow');
    const job = await ended(id);
    expect([job.status, job.result]).toEqual(['completed', 4]);
    for (const done of ['s1', 's2', 's4']) {
      expect([count(dir, `${done} start`), count(dir, `${done} end`)], effects(dir).join(', ')).toEqual([
        1, 1,
      ]);
    }
    expect([count(dir, 's3 start'), count(dir, 's3 end')]).toEqual([2, 1]);
    // Every step's job ran under the flow's status: four steps, each a completed job.
    expect(job.flow_status!.modules.map((module) => module.type)).toEqual([
      'Success',
      'Success',
      'Success',
      'Success',
    ]);
    await worker.stop();
  }, 120_000);
});
