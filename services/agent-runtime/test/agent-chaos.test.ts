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
  saveFakeOpenAIProvider,
  scriptScratchDir,
  startFakeOpenAI,
  startMesh,
  startOwnProcess,
  waitFor,
  type FakeOpenAI,
  type OwnProcess,
  type RecordedRequest,
  type TestMesh,
} from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Chaos: agent steps run while each process of the mesh is SIGKILLed at a random moment and
 * replaced (agent-runtime, llm-gateway, the orchestrator's worker, the orchestrator). Each step
 * makes three model calls (slowed by the fake, so kills land mid-call) and two tool calls (a
 * script that appends a line to a file). Per step, the test counts the model calls of each turn,
 * the runs of each tool call and the final answer, and fails on any repeat of a call that was not
 * in flight at a kill: a model answer the runtime had received is never asked for again, a tool
 * call that had ended never runs again. A repeated model call must carry the same idempotency key.
 * It also measures how long agent-runtime took to go on with a dead replica's steps.
 */
const OPENAI_KEY = `sk-chaos-${randomBytes(12).toString('hex')}`;
const PROVIDER = { kind: 'openai', resource: '$res:f/ai/openai', model: 'gpt-4o-mini' };
const STEPS_PER_ROUND = 8;
/** A repeat counts as in flight when a kill fell between its first ask and this long after its answer. */
const IN_FLIGHT_SLACK_MS = 1_500;
const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000);

function random(): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return ((state >>> 0) % 1_000_000) / 1_000_000;
  };
}

/** One model request as the fake saw it. */
interface Ask {
  readonly step: string;
  readonly turn: number;
  readonly at: number;
  readonly answeredAt: number;
  readonly key: string | undefined;
}

type Killable = 'agent-runtime' | 'llm-gateway' | 'flow-orchestrator-worker' | 'flow-orchestrator';

describe('agent steps under chaos: nothing answered is asked again, nothing ended runs again', () => {
  let mesh: TestMesh;
  let conn: MeshConnection;
  let jobs: OrchestratorJobsClient;
  let fake: FakeOpenAI;
  const actor = { token: `fm_chaos_${randomBytes(24).toString('base64url')}` };
  const inMain = { actor, workspace: 'main' };
  const next = random();
  const dir = scriptScratchDir('fm-agent-chaos-');
  const asks: Ask[] = [];
  const output: string[] = [];
  /** Runtime log lines with their job and time: when each step was taken up again. */
  const resumes: Array<{ jobId: string; at: number; how: string }> = [];
  const processes = new Map<string, OwnProcess>();
  const env = {
    FLOWMESH_ADMIN_TOKEN: actor.token,
    FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
    LOG_LEVEL: 'info',
    FLOWMESH_WORK_ACK_WAIT_MS: '8000',
    FLOWMESH_AGENT_MAX_ATTEMPTS: '10',
    // The fake model listens on loopback.
    FLOWMESH_OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
  };
  const keep = (name: string) => (line: string) => {
    output.push(`${name}: ${line}`);
    if (output.length > 400) output.shift();
    if (!line.includes('"job_id"')) return;
    if (!line.includes('started again after its replica stopped') && !line.includes('"attempt"')) return;
    try {
      const entry = JSON.parse(line) as { job_id?: string; time?: string; msg?: string };
      if (entry.job_id && entry.time)
        resumes.push({ jobId: entry.job_id, at: Date.parse(entry.time), how: entry.msg ?? '' });
    } catch {
      // not a JSON log line
    }
  };
  const start = async (name: Killable, as = name as string, extra: Record<string, string> = {}) => {
    processes.set(as, await startOwnProcess(mesh, name, { ...env, ...extra }, keep(as)));
  };

  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: OPENAI_KEY });
    fake.setDefaultReply((request: RecordedRequest) => answer(request));
    mesh = await startMesh({ processes: ['resource-registry'], env, readyTimeoutMs: 150_000 });
    await start('flow-orchestrator');
    await start('flow-orchestrator-worker');
    await start('llm-gateway');
    await start('agent-runtime', 'runtime-a');
    await start('agent-runtime', 'runtime-b');
    conn = await connectMesh({
      url: mesh.env.NATS_URL,
      name: 'agent-chaos',
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    });
    const client = new MeshClient(conn);
    jobs = createOrchestratorJobsClient(client);
    await saveFakeOpenAIProvider(client, inMain, fake, OPENAI_KEY);
  }, 300_000);

  afterAll(async () => {
    await conn?.drain().catch(() => undefined);
    await Promise.allSettled([...processes.values()].map((process) => process.stop()));
    await mesh?.stop();
    await fake?.close();
  }, 180_000);

  /** The fake model: two turns that call the recorder tool, then the answer; each slowed. */
  function answer(request: RecordedRequest) {
    const body = request.body as { messages: Array<{ role: string; content: unknown }> };
    const prompt = JSON.stringify(body.messages.find((message) => message.role === 'user')?.content ?? '');
    const step = /chaos-step-[a-z0-9-]+/.exec(prompt)?.[0] ?? 'unknown';
    const turn = body.messages.filter((message) => message.role === 'assistant').length;
    const delayMs = 400 + Math.floor(next() * 900);
    const at = Date.now();
    asks.push({ step, turn, at, answeredAt: at + delayMs, key: request.headers['idempotency-key'] });
    if (turn < 2)
      return {
        delayMs,
        toolCalls: [
          { id: `call_${turn}`, name: 'recorder', arguments: JSON.stringify({ step, n: turn + 1 }) },
        ],
      };
    return { delayMs, text: `done ${step}` };
  }

  const flowOf = (step: string) => ({
    modules: [
      {
        id: 'agent',
        value: {
          type: 'aiagent',
          input_transforms: {
            provider: { type: 'static', value: PROVIDER },
            user_message: { type: 'static', value: `Work on ${step}.` },
          },
          tools: [
            {
              id: 'recorder',
              summary: 'recorder',
              value: {
                tool_type: 'flowmodule',
                type: 'rawscript',
                language: 'bun',
                content: [
                  "import { appendFileSync } from 'node:fs';",
                  'export async function main(step: string, n: number) {',
                  '  await new Promise((resolve) => setTimeout(resolve, 150 + Math.floor(Math.random() * 300)));',
                  `  appendFileSync('${dir}/tools', \`\${step} \${n} \${Date.now()}\\n\`);`,
                  '  return n * 2;',
                  '}',
                ].join('\n'),
                input_transforms: { step: { type: 'ai' }, n: { type: 'ai' } },
              },
            },
          ],
        },
      },
    ],
  });

  const kill = async (name: string, restart: () => Promise<void>): Promise<{ at: number; back: number }> => {
    const at = Date.now();
    await processes.get(name)!.kill();
    await restart();
    return { at, back: Date.now() };
  };

  /**
   * Runs a round of steps, calls `chaos` once they are under way, and judges every step: its
   * answer, its model calls per turn, its tool runs. Answers the kill times.
   */
  async function round(label: string, chaos: () => Promise<Array<{ at: number; back: number }>>) {
    const ids = new Map<string, string>();
    for (let i = 0; i < STEPS_PER_ROUND; i++) {
      const step = `chaos-step-${label}-${i}`;
      ids.set(step, (await jobs.runFlow({ ...inMain, value: flowOf(step), args: {} })).job_id);
    }
    await new Promise((resolve) => setTimeout(resolve, 800 + Math.floor(next() * 1_800)));
    const kills = await chaos();
    const ended = new Map<string, Job>();
    await waitFor(
      async () => {
        for (const [step, id] of ids) {
          if (ended.has(step)) continue;
          const job = await jobs.get({ ...inMain, id });
          if (isTerminalJobStatus(job.status)) ended.set(step, job);
        }
        return ended.size === ids.size;
      },
      { timeoutMs: 180_000, intervalMs: 500, description: `the ${label} round's steps to end` },
    ).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; seed ${seed}; output:\n${output.slice(-60).join('\n')}`);
    });

    const inFlight = (from: number, to: number) =>
      kills.some((k) => k.at >= from && k.at <= to + IN_FLIGHT_SLACK_MS);
    const problems: string[] = [];
    const counts = { modelCalls: 0, repeatedInFlight: 0, toolRuns: 0, toolRerunsInFlight: 0 };
    const toolLines = existsSync(join(dir, 'tools'))
      ? readFileSync(join(dir, 'tools'), 'utf8').trim().split('\n')
      : [];
    for (const [step, job] of ended) {
      const output = (job.result as { output?: unknown } | null)?.output;
      if (job.status !== 'completed' || output !== `done ${step}`)
        problems.push(`${step}: ${job.status} ${JSON.stringify(job.result).slice(0, 300)}`);
      for (let turn = 0; turn < 3; turn++) {
        const calls = asks.filter((ask) => ask.step === step && ask.turn === turn);
        counts.modelCalls += calls.length;
        if (calls.length === 0) problems.push(`${step}: model call ${turn + 1} never made`);
        const [first, ...again] = calls;
        for (const repeat of again) {
          if (repeat.key !== first!.key)
            problems.push(`${step}: model call ${turn + 1} asked again under another key`);
          if (inFlight(first!.at, first!.answeredAt)) counts.repeatedInFlight++;
          else
            problems.push(
              `${step}: model call ${turn + 1} asked again ${repeat.at - first!.answeredAt} ms after its answer, with no kill in flight`,
            );
        }
      }
      for (const n of [1, 2]) {
        const runs = toolLines
          .filter((line) => line.startsWith(`${step} ${n} `))
          .map((line) => Number(line.split(' ')[2]));
        counts.toolRuns += runs.length;
        if (runs.length === 0) problems.push(`${step}: tool call ${n} never ran`);
        for (const run of runs.slice(1)) {
          // The first run's job was in flight when a kill fell between its start (at most 500 ms
          // before its line) and its completion being recorded.
          if (inFlight(runs[0]! - 500, runs[0]!)) counts.toolRerunsInFlight++;
          else
            problems.push(
              `${step}: tool call ${n} ran again ${run - runs[0]!} ms after it ended, with no kill in flight`,
            );
        }
      }
    }
    expect(problems, `seed ${seed}`).toEqual([]);
    // The agent steps' own jobs, which agent-runtime's log names.
    const stepJobs = [...ended.values()].map((job) => job.flow_status!.modules[0]!.job!);
    return { counts, kills, ids: stepJobs };
  }

  /** The longest time from a kill to a step of the killed replica being taken up again. */
  const takeover = (kill: { at: number }, ids: readonly string[]) => {
    const times = resumes.filter((r) => ids.includes(r.jobId) && r.at >= kill.at).map((r) => r.at - kill.at);
    return times.length > 0 ? Math.max(...times) : undefined;
  };
  const figures: string[] = [];

  it('agent-runtime killed: the other replica goes on with its steps within 5 s', async () => {
    const { counts, kills, ids } = await round('runtime', async () => [
      await kill('runtime-a', async () => {}),
    ]);
    const taken = takeover(kills[0]!, ids);
    figures.push(`runtime killed: ${JSON.stringify(counts)}, taken over after ${taken} ms`);
    if (taken !== undefined) expect(taken).toBeLessThan(5_000 + 2_000); // the lease (3 s), a poll, a loaded machine
    await start('agent-runtime', 'runtime-a');
  }, 300_000);

  it('llm-gateway killed: the call in flight is asked again, under its key, nothing else', async () => {
    const { counts } = await round('gateway', async () => [
      await kill('llm-gateway', () => start('llm-gateway')),
    ]);
    figures.push(`gateway killed: ${JSON.stringify(counts)}`);
  }, 300_000);

  it("the orchestrator's worker killed: a tool that had ended never runs again", async () => {
    const { counts } = await round('worker', async () => [
      await kill('flow-orchestrator-worker', () => start('flow-orchestrator-worker')),
    ]);
    figures.push(`worker killed: ${JSON.stringify(counts)}`);
  }, 300_000);

  it('the orchestrator killed: steps finish, nothing repeats', async () => {
    const { counts } = await round('orchestrator', async () => [
      await kill('flow-orchestrator', () => start('flow-orchestrator')),
    ]);
    figures.push(`orchestrator killed: ${JSON.stringify(counts)}`);
  }, 300_000);

  it('a restarted replica takes its own steps up at once, not after their lease', async () => {
    // Long leases: a step taken up within them was taken up by the restart, not by expiry.
    await processes.get('runtime-b')!.stop();
    processes.delete('runtime-b');
    await processes.get('runtime-a')!.stop();
    await start('agent-runtime', 'runtime-a', { FLOWMESH_AGENT_LEASE_MS: '60000' });
    const { counts, kills, ids } = await round('restart', async () => [
      await kill('runtime-a', () =>
        start('agent-runtime', 'runtime-a', { FLOWMESH_AGENT_LEASE_MS: '60000' }),
      ),
    ]);
    const taken = takeover(kills[0]!, ids);
    figures.push(`runtime restarted: ${JSON.stringify(counts)}, taken up ${taken} ms after the kill`);
    expect(taken).toBeDefined();
    expect(taken!).toBeLessThan(30_000);
    console.log(`agent chaos (seed ${seed}):\n${figures.join('\n')}`);
  }, 300_000);
});
