// Agent benchmark: what flowmesh adds per iteration of an AI agent step when the model answers at
// once. Each agent step makes two model calls (one asks for a tool, one answers), runs the tool as
// a TypeScript child job and loads and saves its memory; the floor is the same flow with the tool
// as a plain step (flow start, one script job, flow end) in the same run. Per iteration:
// (agent flow - floor flow) / 2. Also agent steps per second with 50 in flight.
// Run: npm run build && node_modules/.bin/node bench/agent/run.js
import { cpus, loadavg } from 'node:os';
import { createRegistryIdentityClient, createRegistryItemsClient } from '@flowmesh/contracts';
import { startFakeOpenAI } from '@flowmesh/testing';
import { startFlowmesh } from '../flows/flowmesh-runner.js';
import { burst, ms, rate, summarize } from '../flows/stats.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 30);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 50);
const THROUGHPUT_SECONDS = Number(process.env.BENCH_THROUGHPUT_SECONDS ?? 10);
const THROUGHPUT_WARMUP_SECONDS = Number(process.env.BENCH_THROUGHPUT_WARMUP_SECONDS ?? 10);
const TARGET_ITERATION_P50_MS = 10;
const ITERATIONS = 2;

const ADD = 'export function main(a: number, b: number) { return a + b; }';
const provider = { kind: 'openai', resource: '$res:f/bench/llm', model: 'gpt-4o-mini' };

/** One agent step: the model asks for `add`, gets its result, answers; memory kept per run id. */
const agentFlow = {
  summary: 'agent bench',
  value: {
    modules: [
      {
        id: 'agent',
        value: {
          type: 'aiagent',
          input_transforms: {
            provider: { type: 'static', value: provider },
            user_message: { type: 'static', value: 'Add 2 and 3.' },
            memory: { type: 'static', value: { kind: 'window', context_length: 10 } },
            memory_id: { type: 'javascript', expr: 'flow_input.memory' },
          },
          tools: [
            {
              id: 'adder',
              summary: 'add',
              value: {
                tool_type: 'flowmodule',
                type: 'rawscript',
                language: 'bun',
                content: ADD,
                input_transforms: { a: { type: 'ai' }, b: { type: 'ai' } },
              },
            },
          ],
        },
      },
    ],
  },
};

/** The floor: the tool as the flow's one step. */
const floorFlow = {
  summary: 'agent bench floor',
  value: {
    modules: [
      {
        id: 'add',
        value: {
          type: 'rawscript',
          language: 'bun',
          content: ADD,
          input_transforms: { a: { type: 'static', value: 2 }, b: { type: 'static', value: 3 } },
        },
      },
    ],
  },
};

/** The model: asks for the tool, then answers once the tool's result is in the conversation. */
function instantModel(request) {
  const messages = request.body.messages ?? [];
  return messages.at(-1)?.role === 'tool'
    ? { text: 'The sum is 5.' }
    : { toolCalls: [{ id: `call_${messages.length}`, name: 'add', arguments: '{"a":2,"b":3}' }] };
}

function line(label, value) {
  console.log(`${label.padEnd(46)} ${value}`);
}

const loadBefore = loadavg();
console.log(
  `bench/agent: ${cpus().length} cores, load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`,
);
const model = await startFakeOpenAI({ apiKey: 'sk-bench' });
model.setDefaultReply(instantModel);
const mesh = await startFlowmesh({
  processes: [
    'resource-registry',
    'flow-orchestrator',
    'flow-orchestrator-worker',
    'llm-gateway',
    'memory-service',
    'agent-runtime',
  ],
  env: { FLOWMESH_OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32' },
});
try {
  const items = createRegistryItemsClient(mesh.client);
  const inMain = { actor: mesh.actor, workspace: 'main' };
  await createRegistryIdentityClient(mesh.client).createFolder({ ...inMain, name: 'bench' });
  await items.createVariable({ ...inMain, path: 'f/bench/llm_key', value: 'sk-bench', is_secret: true });
  await items.createResource({
    ...inMain,
    path: 'f/bench/llm',
    resource_type: 'openai',
    value: { base_url: `${model.url}/v1`, api_key: '$var:f/bench/llm_key' },
  });

  const agent = (i) => mesh.run(agentFlow, { memory: `bench-${i % 20}` });
  const floor = () => mesh.run(floorFlow, {});
  const agentTimes = [];
  const floorTimes = [];
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const a = await agent(i);
    const f = await floor();
    if (i >= WARMUP) {
      agentTimes.push(a.ms);
      floorTimes.push(f.ms);
    }
  }
  const agentStats = summarize(agentTimes);
  const floorStats = summarize(floorTimes);
  const perIteration = summarize(agentTimes.map((t, i) => (t - floorTimes[i]) / ITERATIONS));
  await burst(agent, { seconds: THROUGHPUT_WARMUP_SECONDS, inFlight: IN_FLIGHT });
  const steady = await burst(agent, { seconds: THROUGHPUT_SECONDS, inFlight: IN_FLIGHT });

  console.log(
    `\n${SAMPLES} sequential samples each (after ${WARMUP}), one agent step = ${ITERATIONS} model calls + 1 tool job`,
  );
  line('agent flow end to end, p50 / p99', `${ms(agentStats.p50)} / ${ms(agentStats.p99)}`);
  line('floor (the tool as a plain step), p50 / p99', `${ms(floorStats.p50)} / ${ms(floorStats.p99)}`);
  line(
    'added per iteration, p50 / p99',
    `${ms(perIteration.p50)} / ${ms(perIteration.p99)} (target p50 <= ${TARGET_ITERATION_P50_MS} ms)`,
  );
  line(
    `agent steps/s, ${IN_FLIGHT} in flight`,
    `${rate(steady.steady)} (${steady.flows} steps in ${THROUGHPUT_SECONDS} s)`,
  );
  line('model calls the fake answered', String(model.chatRequests().length));
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  process.exitCode = perIteration.p50 <= TARGET_ITERATION_P50_MS ? 0 : 1;
} finally {
  await mesh.stop();
  await model.close();
}
