// The webhook part: a saved flow of one trivial TypeScript step (and the same flow with a
// preprocessor_module) run by path over HTTP, as a webhook calls it, and n8n's Webhook -> Code
// workflow beside it. See README.md.
import { isoMs } from '../flows/flowmesh-runner.js';
import { burst, summarize } from '../flows/stats.js';
import { cpuBetween, cpuSnapshot } from './cpu.js';

/** The step: the input's `n` plus one, and when it ran (ms since the epoch), as n8n's Code node. */
const STEP = 'export function main(n: number) { return { x: n + 1, at: Date.now() }; }';

/** The preprocessor (Windmill's v2 form): the webhook's body gives the flow's input. */
const PREPROCESSOR =
  'export function preprocessor(event: { kind: string; body: { n: number } }) { return { n: event.body.n, via: event.kind }; }';

const step = {
  id: 'a',
  value: {
    type: 'rawscript',
    language: 'bun',
    content: STEP,
    input_transforms: { n: { type: 'javascript', expr: 'flow_input.n' } },
  },
};

export const FLOWS = {
  plain: { path: 'u/admin/webhook_bench', value: { modules: [step] } },
  preprocessed: {
    path: 'u/admin/webhook_bench_pre',
    value: {
      preprocessor_module: {
        id: 'preprocessor',
        value: {
          type: 'rawscript',
          language: 'bun',
          content: PREPROCESSOR,
          input_transforms: { event: { type: 'javascript', expr: 'flow_input.event' } },
        },
      },
      modules: [step],
    },
  },
};

const now = () => performance.timeOrigin + performance.now();

/**
 * Saves the two flows; answers the token a third party calls them with: a run token (Windmill's
 * webhook-specific token, `jobs:run` on the two paths and nothing else), or the admin's own with
 * `caller` `admin`.
 */
export async function saveFlows(fm, caller = 'run-token') {
  for (const [name, flow] of Object.entries(FLOWS))
    await fm.items.createFlow({
      ...fm.inMain,
      path: flow.path,
      summary: `bench webhook ${name}`,
      value: flow.value,
    });
  if (caller === 'admin') return fm.authorization;
  const { token } = await fm.identity.createApiToken({
    ...fm.inMain,
    label: 'bench webhook',
    scopes: [`jobs:run:${FLOWS.plain.path}*`],
  });
  return `Bearer ${token}`;
}

/**
 * A flowmesh webhook caller: `sync(kind, n)` POSTs `{n}` to `jobs/run_wait_result/f/<path>` and
 * checks the answer; `async(kind, n)` POSTs to `jobs/run/f/<path>`, answers the job id and waits
 * for the run's end (its completion event) before resolving, so sequential samples never overlap.
 */
export function flowmeshWebhooks(fm, authorization) {
  const post = async (route, n) => {
    const sentAt = now();
    const response = await fetch(fm.base + route, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ n }),
    });
    const text = await response.text();
    return { sentAt, doneAt: now(), status: response.status, text };
  };
  return {
    async sync(kind, n) {
      const answer = await post(`jobs/run_wait_result/f/${FLOWS[kind].path}`, n);
      if (answer.status !== 200)
        throw new Error(
          `run_wait_result/f/${FLOWS[kind].path} answered ${answer.status}: ${answer.text.slice(0, 500)}`,
        );
      const result = JSON.parse(answer.text);
      if (result?.x !== n + 1)
        throw new Error(`the ${kind} webhook flow returned ${answer.text.slice(0, 200)}`);
      return { sentAt: answer.sentAt, ms: answer.doneAt - answer.sentAt, stepAt: result.at };
    },
    async async(kind, n) {
      const answer = await post(`jobs/run/f/${FLOWS[kind].path}`, n);
      if (answer.status !== 201)
        throw new Error(`run/f/${FLOWS[kind].path} answered ${answer.status}: ${answer.text.slice(0, 500)}`);
      const id = answer.text.replace(/^"|"$/g, '');
      const event = await fm.ended(id);
      if (!event.success) throw new Error(`webhook run ${id} failed`);
      return { sentAt: answer.sentAt, ms: answer.doneAt - answer.sentAt, id };
    },
  };
}

/** Waits until n8n recorded `count` finished executions of a workflow; answers them. */
async function n8nExecutions(n8n, kind, count) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const executions = n8n.executions(kind);
    if (executions.length >= count && executions.slice(0, count).every((e) => e.done)) return executions;
    if (Date.now() > deadline)
      throw new Error(`n8n recorded ${executions.length} ${kind} executions, not ${count}, within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/**
 * The whole webhook part. `n8n` is the peer or undefined. Latency samples alternate the systems
 * (one call each per round) so the machine's other load falls on all alike; the throughput runs
 * come one after the other, each after an untimed burst as long for every system.
 */
export async function webhookPart(fm, n8n, settings, authorization) {
  const { samples, warmup, inFlight, seconds, warmupSeconds } = settings;
  const ours = flowmeshWebhooks(fm, authorization);
  await fm.watchEnds();
  // The preprocessor ran on a run by path (checked once, untimed).
  const checked = await ours.async('preprocessed', 41);
  const job = await fm.jobs.get({ ...fm.inMain, id: checked.id });
  const preprocessorRan = job.flow_status?.preprocessor_module?.type === 'Success';
  const triggerKind = job.trigger_kind ?? null;

  // Sync: end to end, and from the request to the step's code running.
  const sync = { flowmesh: [], flowmeshPre: [], n8n: [] };
  const toStep = { flowmesh: [], flowmeshPre: [], n8n: [] };
  const systems = {
    flowmesh: (i) => ours.sync('plain', i),
    flowmeshPre: (i) => ours.sync('preprocessed', i),
    ...(n8n ? { n8n: (i) => n8n.sync(i) } : {}),
  };
  for (let i = 0; i < warmup + samples; i++) {
    for (const [name, run] of Object.entries(systems)) {
      const sample = await run(i);
      if (i < warmup) continue;
      sync[name].push(sample.ms);
      toStep[name].push(sample.stepAt - sample.sentAt);
    }
  }

  // Async: the answer (201 and the job id), then, read afterwards, the run's start as recorded.
  const ack = { flowmesh: [], flowmeshPre: [], n8n: [] };
  const sent = { flowmesh: [], flowmeshPre: [], n8n: [] };
  const n8nAsyncBefore = n8n ? n8n.executions('async').length : 0;
  for (let i = 0; i < warmup + samples; i++) {
    for (const kind of ['plain', 'preprocessed']) {
      const sample = await ours.async(kind, i);
      if (i < warmup) continue;
      const name = kind === 'plain' ? 'flowmesh' : 'flowmeshPre';
      ack[name].push(sample.ms);
      sent[name].push({ sentAt: sample.sentAt, id: sample.id });
    }
    if (n8n) {
      const sample = await n8n.async(i);
      await n8nExecutions(n8n, 'async', n8nAsyncBefore + i + 1);
      if (i < warmup) continue;
      ack.n8n.push(sample.ms);
      sent.n8n.push({ sentAt: sample.sentAt, index: n8nAsyncBefore + i });
    }
  }
  const toStart = { flowmesh: [], flowmeshPre: [], n8n: [] };
  const toCreated = { flowmesh: [], flowmeshPre: [], n8n: [] };
  for (const name of ['flowmesh', 'flowmeshPre'])
    for (const { sentAt, id } of sent[name]) {
      const run = await fm.jobs.get({ ...fm.inMain, id });
      toStart[name].push(isoMs(run.started_at) - sentAt);
      toCreated[name].push(isoMs(run.created_at) - sentAt);
    }
  if (n8n) {
    const executions = n8n.executions('async');
    for (const { sentAt, index } of sent.n8n) {
      toStart.n8n.push(executions[index].startedAt - sentAt);
      toCreated.n8n.push(executions[index].createdAt - sentAt);
    }
  }

  fm.unwatchEnds();
  // Executions per second with `inFlight` sync calls outstanding (each completion starts the next).
  // CPU per process during each timed burst (cpu.js): where an execution's time goes.
  const processes = new Map(
    ['flow-orchestrator', 'flow-orchestrator-worker', 'resource-registry'].map((name) => [
      String(fm.pidOf(name)),
      name,
    ]),
  );
  if (n8n) processes.set(String(n8n.pid), 'n8n');
  const throughput = async (runOnce) => {
    await burst(runOnce, { seconds: warmupSeconds, inFlight });
    const before = cpuSnapshot(processes);
    const rate = await burst(runOnce, { seconds, inFlight });
    return { ...rate, cpu: cpuBetween(before, cpuSnapshot(processes)) };
  };
  const tput = {
    flowmesh: await throughput((i) => ours.sync('plain', i)),
    flowmeshPre: await throughput((i) => ours.sync('preprocessed', i)),
    ...(n8n ? { n8n: await throughput((i) => n8n.sync(i)) } : {}),
  };

  const summary = (lists) => Object.fromEntries(Object.entries(lists).map(([k, v]) => [k, summarize(v)]));
  return {
    preprocessorRan,
    triggerKind,
    sync: summary(sync),
    toStep: summary(toStep),
    ack: summary(ack),
    toStart: summary(toStart),
    toCreated: summary(toCreated),
    tput,
  };
}
