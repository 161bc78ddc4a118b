import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
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
 * Graceful shutdown under load (issue 21 point 6): two workers share many flows in flight; one
 * gets SIGTERM. It must exit by itself within its bound (FLOWMESH_SHUTDOWN_TIMEOUT_MS, 10 s: past
 * it the process exits 1), with code 0; the steps it had in flight finish, and the flows it drove
 * go to the other worker after them, at once: the ack wait is far longer than the test waits, so
 * a flow handed back only when its message timed out would not complete in time. Every step
 * appends `<flow> <step> start|end <sandbox pid> <ms>` to a file: every step ends, and none
 * starts after the engine recorded it completed (a completed step run twice).
 */
const FLOWS = 40;
const STEPS = 6;
const WORKSPACE = 'main';
const ENV = {
  LOG_LEVEL: 'warn',
  // Redelivery on timeout would come after 5 minutes (and a lapsed lease after half of it).
  FLOWMESH_WORK_ACK_WAIT_MS: '300000',
};

function step(id: string, dir: string): Record<string, unknown> {
  return {
    id,
    value: {
      type: 'rawscript',
      language: 'bun',
      content: [
        "import { appendFileSync } from 'node:fs';",
        "import { pid } from 'node:process';",
        'export async function main(key: string, x: number) {',
        `  appendFileSync('${dir}/effects', \`\${key} ${id} start \${pid} \${Date.now()}\\n\`);`,
        '  await new Promise((resolve) => setTimeout(resolve, 100 + Math.floor(Math.random() * 200)));',
        `  appendFileSync('${dir}/effects', \`\${key} ${id} end \${pid} \${Date.now()}\\n\`);`,
        '  return x + 1;',
        '}',
      ].join('\n'),
      input_transforms: {
        key: { type: 'javascript', expr: 'flow_input.key' },
        x: { type: 'javascript', expr: id === 's1' ? 'flow_input.n' : 'previous_result' },
      },
    },
  };
}

/** The parent pid of a process, from /proc (the thread sandbox is its worker's child). */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

describe('graceful shutdown of a worker under load', () => {
  let mesh: TestMesh;
  let conn: MeshConnection;
  let jobs: OrchestratorJobsClient;
  const own: OwnProcess[] = [];
  const actor = { token: `fm_stop_${randomBytes(24).toString('base64url')}` };
  const output: string[] = [];
  const keep = (line: string) => {
    output.push(line);
    if (output.length > 300) output.shift();
  };

  beforeAll(async () => {
    const env = { ...ENV, FLOWMESH_ADMIN_TOKEN: actor.token, FLOWMESH_ADMIN_EMAIL: 'admin@example.test' };
    mesh = await startMesh({ processes: ['resource-registry'], env, readyTimeoutMs: 150_000 });
    own.push(await startOwnProcess(mesh, 'flow-orchestrator', env, keep));
    conn = await connectMesh({
      url: mesh.env.NATS_URL,
      name: 'graceful-shutdown',
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    });
    jobs = createOrchestratorJobsClient(new MeshClient(conn));
  }, 240_000);

  afterAll(async () => {
    await conn?.drain().catch(() => undefined);
    await Promise.allSettled(own.map((process) => process.stop()));
    await mesh?.stop();
  }, 120_000);

  it('SIGTERM: the worker exits 0 within its bound, hands its flows back at once, and no step runs twice', async () => {
    const env = { ...ENV, FLOWMESH_ADMIN_TOKEN: actor.token };
    const stopping = await startOwnProcess(mesh, 'flow-orchestrator-worker', env, keep);
    own.push(stopping);
    const staying = await startOwnProcess(mesh, 'flow-orchestrator-worker', env, keep);
    own.push(staying);
    const dir = scriptScratchDir('fm-graceful-stop-');
    const flow = {
      summary: 'graceful stop',
      value: { modules: Array.from({ length: STEPS }, (_, i) => step(`s${i + 1}`, dir)) },
    };
    const ids: string[] = [];
    for (let i = 0; i < FLOWS; i++) {
      const { job_id } = await jobs.runFlow({
        actor,
        workspace: WORKSPACE,
        value: flow,
        args: { key: `f${i}`, n: i * 100 },
      });
      ids.push(job_id);
    }
    const effects = () =>
      existsSync(join(dir, 'effects'))
        ? readFileSync(join(dir, 'effects'), 'utf8')
            .trim()
            .split('\n')
            .map((line) => line.split(' '))
        : [];
    // Under load: the worker to stop has steps running (its thread sandbox is its child).
    const stoppingSandbox = await waitFor(
      () => {
        const lines = effects();
        const ours = lines.find(([, , , pid]) => parentOf(Number(pid)) === stopping.pid);
        return ours && lines.length >= FLOWS ? Number(ours[3]) : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 50, description: 'both workers running steps of many flows' },
    );
    const exit = await stopping.terminate();
    expect(exit, `the stopping worker's last output:\n${output.slice(-30).join('\n')}`).toEqual({
      code: 0,
      signal: null,
    });

    const finished = new Map<string, Job>();
    await waitFor(
      async () => {
        for (const id of ids.filter((id) => !finished.has(id))) {
          const job = await jobs.get({ actor, workspace: WORKSPACE, id });
          if (isTerminalJobStatus(job.status)) finished.set(id, job);
        }
        return finished.size === ids.length;
      },
      { timeoutMs: 120_000, intervalMs: 500, description: `all ${FLOWS} flows to end on the other worker` },
    ).catch((error: unknown) => {
      throw new Error(
        `${(error as Error).message}; ${finished.size}/${FLOWS} ended; last output:\n${output.slice(-30).join('\n')}`,
      );
    });
    const wrong = ids.flatMap((id, i) => {
      const job = finished.get(id)!;
      return job.status === 'completed' && job.result === i * 100 + STEPS
        ? []
        : [`f${i}: ${job.status} ${JSON.stringify(job.result)}`];
    });
    expect(wrong).toEqual([]);

    // When the engine recorded each step done: its job, named in the flow's status.
    const completedAt = new Map<string, number>();
    for (const [i, id] of ids.entries()) {
      for (const module of finished.get(id)!.flow_status?.modules ?? []) {
        const { id: stepId, job } = module as { id?: string; job?: string };
        const done = job ? (await jobs.get({ actor, workspace: WORKSPACE, id: job })).completed_at : null;
        if (stepId && done) completedAt.set(`f${i} ${stepId}`, Date.parse(done));
      }
    }
    const stamps = new Map<string, number[]>();
    const sandboxes = new Map<string, Set<string>>();
    for (const [key, id, phase, pid, at] of effects()) {
      const name = `${key} ${id} ${phase}`;
      stamps.set(name, [...(stamps.get(name) ?? []), Number(at)]);
      sandboxes.set(key, (sandboxes.get(key) ?? new Set()).add(pid));
    }
    const ranAfterCompletion: string[] = [];
    const notEnded: string[] = [];
    const rerunInFlight: string[] = [];
    for (let i = 0; i < FLOWS; i++) {
      for (let s = 1; s <= STEPS; s++) {
        const name = `f${i} s${s}`;
        const starts = stamps.get(`${name} start`) ?? [];
        const done = completedAt.get(name);
        if ((stamps.get(`${name} end`) ?? []).length === 0 || done === undefined) notEnded.push(name);
        // 50 ms of slack between the two clocks; a run after the recorded end would come later.
        if (done !== undefined)
          for (const at of starts) if (at > done + 50) ranAfterCompletion.push(`${name} at +${at - done} ms`);
        if (starts.length > 1) rerunInFlight.push(`${name} x${starts.length}`);
      }
    }
    expect({ ranAfterCompletion, notEnded }).toEqual({ ranAfterCompletion: [], notEnded: [] });
    // The stopping worker had flows in flight that the other one finished: handed over mid-flow.
    const handedOver = [...sandboxes.values()].filter(
      (pids) => pids.has(String(stoppingSandbox)) && pids.size > 1,
    ).length;
    expect(handedOver).toBeGreaterThan(0);
    // A step still running when the grace ran out may run again elsewhere (as after a crash);
    // with steps of 100-300 ms none should, but a loaded machine decides: reported, not failed.
    console.info(
      `graceful stop: ${handedOver} of ${FLOWS} flows went on on the other worker after SIGTERM; ` +
        `steps that ran again: ${rerunInFlight.length ? rerunInFlight.join(', ') : 'none'}`,
    );
  }, 420_000);

  it('a step outlasting the grace is stopped and handed back: the worker still exits 0 in its bound, the step runs again at once elsewhere', async () => {
    // The bound is 10 s: the grace (60 %) ends 6 s after SIGTERM, while the step still sleeps.
    // The step's tag is served by this test's workers only: the worker stopped is the one running it.
    const tag = `long${randomBytes(4).toString('hex')}`;
    const env = { ...ENV, FLOWMESH_ADMIN_TOKEN: actor.token, FLOWMESH_WORKER_TAGS: tag };
    const stopping = await startOwnProcess(mesh, 'flow-orchestrator-worker', env, keep);
    own.push(stopping);
    const dir = scriptScratchDir('fm-graceful-long-');
    const { job_id: flowId } = await jobs.runFlow({
      actor,
      workspace: WORKSPACE,
      value: {
        summary: 'a long step',
        value: {
          modules: [
            {
              id: 'long',
              value: {
                type: 'rawscript',
                language: 'bun',
                tag,
                // The first run sleeps past any grace; the run after it (one started before
                // wrote its line) returns at once.
                content: [
                  "import { appendFileSync, existsSync } from 'node:fs';",
                  'export async function main() {',
                  `  const first = !existsSync('${dir}/effects');`,
                  `  appendFileSync('${dir}/effects', \`start \${Date.now()}\\n\`);`,
                  '  if (first) await new Promise((resolve) => setTimeout(resolve, 120_000));',
                  `  appendFileSync('${dir}/effects', \`end \${Date.now()}\\n\`);`,
                  "  return 'slept';",
                  '}',
                ].join('\n'),
                input_transforms: {},
              },
            },
          ],
        },
      },
      args: {},
    });
    const effects = () =>
      existsSync(join(dir, 'effects')) ? readFileSync(join(dir, 'effects'), 'utf8').trim().split('\n') : [];
    await waitFor(() => effects().length > 0 || undefined, {
      timeoutMs: 120_000,
      intervalMs: 50,
      description: 'the long step to start',
    });
    const staying = await startOwnProcess(mesh, 'flow-orchestrator-worker', env, keep);
    own.push(staying);
    const signalled = Date.now();
    const exit = await stopping.terminate();
    console.info(
      `a step outlasting the grace: the worker stopped ${Date.now() - signalled} ms after SIGTERM`,
    );
    expect(exit, `the stopping worker's last output:\n${output.slice(-30).join('\n')}`).toEqual({
      code: 0,
      signal: null,
    });
    // Handed back, not left to its lease (150 s) or its message's ack wait (300 s): the other
    // worker runs the step again from its start and the flow completes.
    const job = await waitFor(
      async () => {
        const current = await jobs.get({ actor, workspace: WORKSPACE, id: flowId });
        return isTerminalJobStatus(current.status) ? current : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 250, description: 'the flow to end on the other worker' },
    );
    expect([job.status, job.result]).toEqual(['completed', 'slept']);
    const lines = effects();
    expect(lines.filter((line) => line.startsWith('start'))).toHaveLength(2);
    // The stopped run never ended: its sandbox was stopped with its worker's grace.
    expect(lines.filter((line) => line.startsWith('end'))).toHaveLength(1);
  }, 240_000);
});
