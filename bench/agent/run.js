// Agent benchmark: what flowmesh adds per iteration of an AI agent step when the model answers at
// once. Each agent step makes two model calls (one asks for a tool, one answers), runs the tool as
// a TypeScript child job and loads and saves its memory (both flows are saved, run by path); the floor is the same flow with the tool
// as a plain step (flow start, one script job, flow end) in the same run. Per iteration:
// (agent flow - floor flow) / 2. Also agent steps per second with 50 in flight.
// Run: npm run build && node_modules/.bin/node bench/agent/run.js
import { cpus, loadavg } from 'node:os';
import { burst, ms, rate, summarize } from '../flows/stats.js';
import { startAgentBench } from './flows.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 30);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 50);
const THROUGHPUT_SECONDS = Number(process.env.BENCH_THROUGHPUT_SECONDS ?? 10);
const THROUGHPUT_WARMUP_SECONDS = Number(process.env.BENCH_THROUGHPUT_WARMUP_SECONDS ?? 10);
const TARGET_ITERATION_P50_MS = 10;
const ITERATIONS = 2;

function line(label, value) {
  console.log(`${label.padEnd(46)} ${value}`);
}

const loadBefore = loadavg();
console.log(
  `bench/agent: ${cpus().length} cores, load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`,
);
const { model, agent, floor, stop } = await startAgentBench();
try {
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
  await stop();
}
