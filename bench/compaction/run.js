// Compaction benchmark: what agent-runtime spends before each model call of a `compaction` memory
// deciding whether and what to summarize, for conversations of 100, 1 000 and 10 000 messages:
// the projection (the whole prompt estimated, as after a rewrite or without usage; and the steady
// case, the provider's measured count plus the newest round) and the selection (the context cut
// into exchanges, the kept suffix found). The floor, measured in the same run on the same
// conversation, is one JSON.stringify and UTF-8 byte count of it: what any bytes-based estimate of
// the whole prompt costs at least. Samples interleave floor and subject one by one, so load from
// anything else on the machine falls on both alike.
// Run: npx tsc -b services/agent-runtime (or npm run build), then node bench/compaction/run.js
import { cpus, loadavg } from 'node:os';
import { contextBudget } from '../../services/agent-runtime/dist/compaction/context-budget.js';
import { ContextCompactor } from '../../services/agent-runtime/dist/compaction/context-compactor.js';
import { exchangesOf, keptFrom } from '../../services/agent-runtime/dist/compaction/exchanges.js';
import { agentHistory } from '../memory/history.js';
import { summarize } from '../memory/stats.js';

const SIZES = [100, 1_000, 10_000];
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const WARMUP = 20;
/** Target: the projection and the selection together within 5 ms at 1 000 messages (p50). */
const TARGET_MS_AT_1000 = 5;
/**
 * Linear: from 1 000 to 10 000 messages the cost grows no faster than the floor's (serializing the
 * prompt once, itself a little worse than linear on big strings), within this factor.
 */
const LINEAR_FACTOR = 1.5;

const budget = contextBudget(128_000);
const frame = {
  system: 'You are a billing assistant. Answer from the invoices you look up.',
  tools: [
    {
      name: 'get_invoice',
      description: 'Looks an invoice up by number',
      parameters: {
        type: 'object',
        properties: { invoice: { type: 'integer' }, account: { type: 'string' } },
        required: ['invoice'],
      },
    },
  ],
};
const compactor = new ContextCompactor(
  budget,
  async () => undefined,
  () => {},
  8_192,
);

const floor = (messages) => Buffer.byteLength(JSON.stringify(messages), 'utf8');
const projectWhole = (messages) => {
  compactor.recordUsage(undefined, 0);
  return compactor.projected(messages, frame);
};
const projectMeasured = (messages) => {
  compactor.recordUsage(90_000, messages.length - 4);
  return compactor.projected(messages, frame);
};
const select = (messages) => keptFrom(exchangesOf(messages), budget.retain);
const decide = (messages) => projectWhole(messages) + select(messages);

function time(run, messages) {
  const start = process.hrtime.bigint();
  run(messages);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function measure(messages) {
  const subjects = { floor, projectWhole, projectMeasured, select, decide };
  const samples = Object.fromEntries(Object.keys(subjects).map((name) => [name, []]));
  for (let i = 0; i < WARMUP + SAMPLES; i++)
    for (const [name, run] of Object.entries(subjects)) {
      const ms = time(run, messages);
      if (i >= WARMUP) samples[name].push(ms);
    }
  return Object.fromEntries(Object.entries(samples).map(([name, list]) => [name, summarize(list).p50]));
}

const f = (ms) => (ms < 0.1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`);

console.log(
  `compaction bench: ${cpus().length} cores, load ${loadavg()[0].toFixed(2)}, ${SAMPLES} samples, p50`,
);
console.log(
  '| messages | size | floor (stringify) | projection (whole) | projection (measured) | selection | projection + selection | ratio to floor |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
const results = new Map();
for (const size of SIZES) {
  const messages = agentHistory(size, 'c');
  const p50 = measure(messages);
  results.set(size, p50);
  const kb = `${(floor(messages) / 1024).toFixed(0)} KB`;
  console.log(
    `| ${size} | ${kb} | ${f(p50.floor)} | ${f(p50.projectWhole)} | ${f(p50.projectMeasured)} | ${f(p50.select)} | ${f(p50.decide)} | ${(p50.decide / p50.floor).toFixed(2)}x |`,
  );
}

const at1000 = results.get(1_000);
const at10000 = results.get(10_000);
const growth = at10000.decide / at1000.decide / 10;
const floorGrowth = at10000.floor / at1000.floor / 10;
const fast = at1000.decide <= TARGET_MS_AT_1000;
const linear = growth <= floorGrowth * LINEAR_FACTOR;
console.log(
  `projection + selection at 1 000 messages: ${f(at1000.decide)} (target <= ${TARGET_MS_AT_1000} ms): ${fast ? 'ok' : 'MISSED'}`,
);
console.log(
  `cost per message, 10 000 vs 1 000: ${growth.toFixed(2)}x; the floor's: ${floorGrowth.toFixed(2)}x ` +
    `(linear: within ${LINEAR_FACTOR}x of the floor's): ${linear ? 'ok' : 'MISSED'}`,
);
process.exitCode = fast && linear ? 0 : 1;
