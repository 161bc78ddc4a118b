// Decision benchmark: what an aidecision step adds over the provider call itself, the decision
// model (the System One fake) answering at once. Measured at concurrency 1 and 32, each beside
// its floors in the same run: the fake called directly over HTTP, `gateway.decide` over NATS (the
// gateway's hop: credentials, retries, normalization, audit), and a flow of one identity step
// (the engine's cost of any one-step flow). Run: npm run build && node_modules/.bin/node bench/decision/run.js
import { cpus, loadavg } from 'node:os';
import {
  createGatewayClient,
  createRegistryIdentityClient,
  createRegistryItemsClient,
} from '@flowmesh/contracts';
import { startFakeSystemOne } from '@flowmesh/testing';
import { startFlowmesh } from '../flows/flowmesh-runner.js';
import { ms, summarize } from '../flows/stats.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 30);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '1,32').split(',').map(Number);
const KEY = 'ts-bench';

const questions = {
  intent: {
    type: 'choice',
    instructions: 'What does the customer want?',
    criteria: { refund: 'Money back', bug: 'Something is broken', question: 'A how-to question' },
  },
  urgent: { type: 'noul', instructions: 'Is it urgent?' },
};
const state = { message: 'I was charged twice for order 7.', plan: 'pro' };
const provider = { kind: 'typesafe', resource: '$res:f/bench/typesafe', model: 'jev-latest' };
const fixed = (value) => ({ type: 'static', value });

const decisionFlow = {
  summary: 'decision bench',
  value: {
    modules: [
      {
        id: 'd',
        value: {
          type: 'aidecision',
          input_transforms: { provider: fixed(provider), state: fixed(state), questions: fixed(questions) },
        },
      },
    ],
  },
};
const identityFlow = {
  summary: 'decision bench floor',
  value: { modules: [{ id: 'i', value: { type: 'identity' } }] },
};

/**
 * `samples` latencies (ms) of `once`, with `lanes` calls outstanding at any time, after `warmup`;
 * a call that fails is counted (and its first error kept), not timed.
 */
async function latencies(once, lanes, samples, warmup) {
  const out = [];
  const failures = [];
  let next = 0;
  const lane = async () => {
    while (next < warmup + samples) {
      const i = next++;
      const started = performance.now();
      try {
        await once(i);
        if (i >= warmup) out.push(performance.now() - started);
      } catch (error) {
        failures.push(
          error instanceof Error ? `${error.code ?? error.name}: ${error.message}` : String(error),
        );
      }
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return { ...summarize(out), failed: failures.length, firstFailure: failures[0] };
}

function line(label, value) {
  console.log(`${label.padEnd(52)} ${value}`);
}

console.log(
  `bench/decision: ${cpus().length} cores, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const fake = await startFakeSystemOne({ apiKey: KEY });
const mesh = await startFlowmesh({
  processes: [
    'resource-registry',
    'flow-orchestrator',
    'flow-orchestrator-worker',
    'llm-gateway',
    'agent-runtime',
  ],
  env: { FLOWMESH_OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32' },
});
try {
  const inMain = { actor: mesh.actor, workspace: 'main' };
  const items = createRegistryItemsClient(mesh.client);
  await createRegistryIdentityClient(mesh.client).createFolder({ ...inMain, name: 'bench' });
  await items.createResource({
    ...inMain,
    path: 'f/bench/typesafe',
    resource_type: 'typesafe',
    value: { api_key: KEY, base_url: fake.baseUrl },
  });
  await items.createFlow({ ...inMain, path: 'f/bench/decision', ...decisionFlow });
  await items.createFlow({ ...inMain, path: 'f/bench/identity', ...identityFlow });
  const gateway = createGatewayClient(mesh.client);

  const measures = {
    'provider called directly (HTTP)': () =>
      fetch(`${fake.baseUrl}/systemone`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body: JSON.stringify({ model: 'jev-latest', state, questions }),
      }).then((response) => response.json()),
    'gateway.decide over NATS': () => gateway.decide({ ...inMain, provider, state, questions }),
    'flow: one identity step': () => mesh.run({ path: 'f/bench/identity' }, {}),
    'flow: one aidecision step': () => mesh.run({ path: 'f/bench/decision' }, {}),
  };
  for (const lanes of CONCURRENCY) {
    console.log(`\nconcurrency ${lanes}: ${SAMPLES} samples each (after ${WARMUP})`);
    const stats = {};
    for (const [name, once] of Object.entries(measures)) {
      stats[name] = await latencies(once, lanes, SAMPLES, WARMUP);
      const { p50, p99, failed, firstFailure } = stats[name];
      line(
        `${name}, p50 / p99`,
        `${ms(p50)} / ${ms(p99)}${failed ? ` (${failed} failed: ${firstFailure})` : ''}`,
      );
    }
    const direct = stats['provider called directly (HTTP)'].p50;
    const step = stats['flow: one aidecision step'].p50;
    line('decision step over the provider call, p50', ms(step - direct));
    line('  of which the gateway hop, p50', ms(stats['gateway.decide over NATS'].p50 - direct));
    line('  a one-step flow costs anyway (identity floor), p50', ms(stats['flow: one identity step'].p50));
  }
  line('\ncalls the fake answered', String(fake.requests.length));
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
} finally {
  await mesh.stop();
  await fake.close();
}
