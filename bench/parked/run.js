// Parked agents benchmark (issue 22): agent steps waiting for an answer hold no worker, no slot of
// agent-runtime and no memory. PARKED flows (10 000) of one agent step whose model asks a question
// (`ask_question`) are queued; at each further 1 000 parked, each mesh process's resident memory
// is sampled. The first thousands grow each heap to the burst's working set; what a process kept
// per parked agent would go on growing through the second half of the samples, so the slope there
// (least squares, MiB per 1 000 parked) is the measure (flat: the checkpoint is a row). The floor
// is the same processes at rest before any agent parked, measured in the same run. Then every
// question is answered over NATS and the time until all flows completed is shown.
// Run: npm run build && node_modules/.bin/node bench/parked/run.js
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { createOrchestratorJobsClient, createRegistryItemsClient } from '@flowmesh/contracts';
import { oneAgentStep, startAgentBench } from '../agent/flows.js';
import { rssMiB } from '../gateway/processes.js';
import { ms } from '../flows/stats.js';

const PARKED = Number(process.env.BENCH_PARKED ?? 10_000);
/** runFlow requests in flight while queueing. */
const SUBMIT_IN_FLIGHT = Number(process.env.BENCH_SUBMIT_IN_FLIGHT ?? 100);
/** Resident memory may grow this much per 1 000 parked agents while they park (MiB). */
const FLAT_MIB_PER_THOUSAND = 5;
const PROCESSES = ['agent-runtime', 'flow-orchestrator', 'flow-orchestrator-worker', 'llm-gateway'];
const WORKSPACE = 'main';

/** One agent step with the question tool: the model asks, and once answered it says thanks. */
const parkingFlow = oneAgentStep(
  'parked agent bench',
  { user_message: { type: 'static', value: 'Pick a colour with me.' } },
  [{ id: 'ask', summary: 'ask', value: { tool_type: 'question', timeout_s: 3_600 } }],
);

function questionModel(request) {
  const messages = request.body.messages ?? [];
  if (messages.at(-1)?.role === 'tool') return { text: 'Thanks.' };
  return {
    toolCalls: [
      {
        id: `call_${messages.length}`,
        name: 'ask_question',
        arguments: '{"question":"Which colour?","choices":["red","blue"]}',
      },
    ],
  };
}

async function until(probe, what, timeoutMs = 3_600_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Runs `task(i)` for i in [0, count) with at most `inFlight` at once. */
async function pooled(count, inFlight, task) {
  let next = 0;
  const lane = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, lane));
}

const memoryOf = (mesh) => Object.fromEntries(PROCESSES.map((name) => [name, rssMiB(mesh.pidOf(name))]));
/** Least-squares slope of memory over parked agents, in MiB per 1 000 parked. */
function slope(samples, name) {
  const xs = samples.map((sample) => sample.parked / 1_000);
  const ys = samples.map((sample) => sample.memory[name]);
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** Each process's resident memory, the mean of 5 samples a second apart. */
async function memoryAtRest(mesh) {
  const samples = [];
  for (let i = 0; i < 5; i++) {
    samples.push(memoryOf(mesh));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return Object.fromEntries(
    PROCESSES.map((name) => [name, samples.reduce((sum, s) => sum + s[name], 0) / samples.length]),
  );
}

console.log(
  `bench/parked: ${cpus().length} cores, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, ${PARKED} agents to park`,
);
const { model, mesh, stop } = await startAgentBench();
const db = new pg.Client({ connectionString: mesh.databaseUrl });
await db.connect();
try {
  model.setDefaultReply(questionModel);
  const scope = { actor: mesh.actor, workspace: WORKSPACE };
  await createRegistryItemsClient(mesh.client).createFlow({
    ...scope,
    path: 'f/bench/parked',
    ...parkingFlow,
  });
  const jobs = createOrchestratorJobsClient(mesh.client);
  const count = async (where) =>
    (await db.query(`SELECT count(*)::int AS n FROM orchestrator.job WHERE ${where}`)).rows[0].n;
  const parkedNow = () => count(`kind = 'aiagent' AND status = 'suspended'`);

  // Warm every process with a few agents parked and answered, then the floor: memory at rest.
  const warm = 50;
  const warmIds = [];
  await pooled(warm, 25, async () => {
    warmIds.push((await jobs.runFlow({ ...scope, path: 'f/bench/parked', args: {} })).job_id);
  });
  await until(async () => ((await parkedNow()) >= warm ? true : undefined), 'the warm-up agents to park');
  const answerAll = async () => {
    const steps = (
      await db.query(`SELECT id FROM orchestrator.job WHERE kind = 'aiagent' AND status = 'suspended'`)
    ).rows;
    await pooled(steps.length, SUBMIT_IN_FLIGHT, async (i) => {
      await jobs.resume({
        ...scope,
        id: steps[i].id,
        resume_id: 0,
        approve: true,
        payload: { answer: 'blue' },
        authenticated: true,
      });
    });
    return steps.length;
  };
  await answerAll();
  await until(
    async () => ((await count(`status IN ('queued', 'running', 'suspended')`)) === 0 ? true : undefined),
    'the warm-up flows to end',
  );
  const floor = await memoryAtRest(mesh);

  // Park PARKED agents, sampling memory at each further 1 000 parked.
  const began = performance.now();
  const submitting = pooled(PARKED, SUBMIT_IN_FLIGHT, async () => {
    await jobs.runFlow({ ...scope, path: 'f/bench/parked', args: {} });
  });
  const samples = [];
  let mark = 1_000;
  while (mark <= PARKED) {
    const parked = await until(async () => {
      const n = await parkedNow();
      return n >= mark ? n : undefined;
    }, `${mark} parked agents`);
    samples.push({ parked, at: performance.now() - began, memory: memoryOf(mesh) });
    mark += 1_000;
  }
  await submitting;
  const parkedIn = performance.now() - began;
  // What the parked hold: jobs leased by a worker, agent runs owned by a replica.
  const leased = await count(`kind = 'aiagent' AND status = 'suspended' AND lease_owner IS NOT NULL`);
  const owned = (
    await db.query(`SELECT count(*)::int AS n FROM agent_runtime.agent_run WHERE owner IS NOT NULL`)
  ).rows[0].n;
  const parkedMemory = await memoryAtRest(mesh);

  console.log(
    `\n${PARKED} agents queued and parked in ${ms(parkedIn)}; ${leased} parked jobs leased by a worker, ${owned} agent runs owned by a replica`,
  );
  console.log(
    `resident memory (MiB) by parked agents; floor = at rest before any parked (mean of 5 samples)`,
  );
  console.log(['parked'.padStart(8), ...PROCESSES.map((name) => name.padStart(26))].join(''));
  const row = (label, memory) =>
    console.log(
      [label.padStart(8), ...PROCESSES.map((name) => memory[name].toFixed(0).padStart(26))].join(''),
    );
  row('floor', floor);
  for (const sample of samples) row(String(sample.parked), sample.memory);
  row('at rest', parkedMemory);
  let flat = true;
  for (const name of PROCESSES) {
    const perThousand = slope(samples.slice(Math.floor(samples.length / 2)), name);
    if (samples.length > 1 && perThousand > FLAT_MIB_PER_THOUSAND) flat = false;
    const overFloor = parkedMemory[name] - floor[name];
    console.log(
      `${name.padEnd(26)} ${perThousand >= 0 ? '+' : ''}${perThousand.toFixed(2)} MiB per 1 000 parked over the second half; at rest ${overFloor >= 0 ? '+' : ''}${overFloor.toFixed(0)} MiB over the floor`,
    );
  }
  const answeredAt = performance.now();
  const answered = await answerAll();
  await until(
    async () => ((await count(`status IN ('queued', 'running', 'suspended')`)) === 0 ? true : undefined),
    'every flow to end',
  );
  const resumedIn = performance.now() - answeredAt;
  const failed = await count(`status <> 'completed'`);

  console.log(
    `${answered} questions answered over NATS; every flow ended ${ms(resumedIn)} later; ${failed} not completed`,
  );
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  if (!flat || leased > 0 || owned > 0 || failed > 0) process.exitCode = 1;
} finally {
  await db.end();
  await stop();
}
