// Flows benchmark: end-to-end time of a 10-step and a 40-step flow of trivial TypeScript steps,
// ten-step flows per second with 100 in flight, and per-step overhead (one step's end to the next
// one's start), p50/p99, on the flowmesh mesh; the same workflows in n8n (Code nodes behind a
// webhook) in the same run when bench/flows/peer has it installed. See README.md.
// Run: npm run build && node_modules/.bin/node bench/flows/run.js
import { loadavg, cpus } from 'node:os';
import { chainFlow, startFlowmesh } from './flowmesh-runner.js';
import { startN8n } from './n8n-peer.js';
import { burst, ms, rate, ratio, summarize } from './stats.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 30);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5);
const THROUGHPUT_SECONDS = Number(process.env.BENCH_THROUGHPUT_SECONDS ?? 10);
const THROUGHPUT_WARMUP_SECONDS = Number(process.env.BENCH_THROUGHPUT_WARMUP_SECONDS ?? 15);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 100);
const GAP_FLOWS = Number(process.env.BENCH_GAP_FLOWS ?? 10);
const PEER = process.env.BENCH_PEER ?? 'auto';
const TARGETS = { e2e40Ms: 50, stepOverheadP50Ms: 1.2, tenStepFlowsPerSecond: 300 };

/** Runs with `inFlight` outstanding at any time for a while: completions per second (`burst`). */
async function throughput(runOnce, inFlight) {
  // An untimed burst first, as long for every system, at the same concurrency: threads,
  // connections, plans and the JIT warm (flowmesh's rate climbs for its first ~3 000 flows).
  await burst(runOnce, { seconds: THROUGHPUT_WARMUP_SECONDS, inFlight });
  return burst(runOnce, { seconds: THROUGHPUT_SECONDS, inFlight });
}

/**
 * Latency samples of several systems taken in turn, one run each per round, so load from the
 * rest of the machine falls on all of them alike. `systems` maps a name to `run(i)` -> `{ms}`.
 */
async function interleavedLatency(systems, samples, warmup) {
  const times = Object.fromEntries(Object.keys(systems).map((name) => [name, []]));
  for (let i = 0; i < warmup + samples; i++) {
    for (const [name, run] of Object.entries(systems)) {
      const { ms: took } = await run(i);
      if (i >= warmup) times[name].push(took);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([name, list]) => [name, summarize(list)]));
}

function line(label, value) {
  console.log(`${label.padEnd(46)} ${value}`);
}

const loadBefore = loadavg();
console.log(
  `bench/flows: ${cpus().length} cores, load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`,
);
const fm = await startFlowmesh();
let n8n;
let peerSkipped = PEER === 'off' ? 'BENCH_PEER=off' : undefined;
if (PEER !== 'off') {
  try {
    n8n = await startN8n([10, 40]);
  } catch (error) {
    peerSkipped = error instanceof Error ? error.message : String(error);
  }
}
let ours;
let peer;
try {
  const flows = { 10: chainFlow(10), 40: chainFlow(40) };
  // Right results: n + steps (checked outside the timed loops).
  for (const steps of [10, 40]) {
    const { id } = await fm.run(flows[steps], { n: 1000 });
    const job = await fm.get(id);
    if (job.result !== 1000 + steps)
      throw new Error(`a ${steps}-step flow returned ${JSON.stringify(job.result)}, not ${1000 + steps}`);
  }
  const latencies = {};
  for (const steps of [10, 40]) {
    const systems = { flowmesh: (i) => fm.run(flows[steps], { n: i }) };
    if (n8n) systems.n8n = (i) => n8n.run(steps, { n: i });
    latencies[steps] = await interleavedLatency(systems, SAMPLES, WARMUP);
  }
  const gaps = [];
  for (let i = 0; i < GAP_FLOWS; i++) {
    const { id } = await fm.run(flows[40], { n: i });
    gaps.push(...(await fm.stepGaps(id)));
  }
  ours = {
    e2e10: latencies[10].flowmesh,
    e2e40: latencies[40].flowmesh,
    gaps: summarize(gaps),
    tput: await throughput((i) => fm.run(flows[10], { n: i }), IN_FLIGHT),
  };
  if (n8n)
    peer = {
      version: n8n.version,
      e2e10: latencies[10].n8n,
      e2e40: latencies[40].n8n,
      tput: await throughput((i) => n8n.run(10, { n: i }), IN_FLIGHT),
    };
} finally {
  await Promise.allSettled([fm.stop(), n8n?.stop()]);
}
const loadAfter = loadavg();

console.log('');
line(
  'flowmesh 10-step flow end to end',
  `p50 ${ms(ours.e2e10.p50)}  p99 ${ms(ours.e2e10.p99)}  (n=${ours.e2e10.n})`,
);
line(
  'flowmesh 40-step flow end to end',
  `p50 ${ms(ours.e2e40.p50)}  p99 ${ms(ours.e2e40.p99)}  (n=${ours.e2e40.n})`,
);
line(
  'flowmesh per-step overhead (end -> next start)',
  `p50 ${ms(ours.gaps.p50)}  p99 ${ms(ours.gaps.p99)}  (n=${ours.gaps.n} gaps)`,
);
const flowsPerSecond = ({ steady, overall, flows }) =>
  `${rate(steady)}  (${rate(overall)} with ramp-up and drain; ${flows} flows)`;
line(`flowmesh 10-step flows/s, ${IN_FLIGHT} in flight`, flowsPerSecond(ours.tput));
if (peer) {
  line(
    `n8n ${peer.version} 10 Code nodes end to end`,
    `p50 ${ms(peer.e2e10.p50)}  p99 ${ms(peer.e2e10.p99)}`,
  );
  line(
    `n8n ${peer.version} 40 Code nodes end to end`,
    `p50 ${ms(peer.e2e40.p50)}  p99 ${ms(peer.e2e40.p99)}`,
  );
  line(`n8n 10-node executions/s, ${IN_FLIGHT} in flight`, flowsPerSecond(peer.tput));
  line('n8n/flowmesh time, 10 steps p50 (>1: flowmesh faster)', ratio(peer.e2e10.p50, ours.e2e10.p50));
  line('n8n/flowmesh time, 40 steps p50', ratio(peer.e2e40.p50, ours.e2e40.p50));
  line('flowmesh/n8n flows per second', ratio(ours.tput.steady, peer.tput.steady));
} else line('n8n peer', `skipped: ${peerSkipped}`);
console.log(
  `load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}`,
);

const missed = [];
if (!(ours.e2e40.p50 <= TARGETS.e2e40Ms))
  missed.push(`40-step p50 ${ms(ours.e2e40.p50)} > ${TARGETS.e2e40Ms} ms`);
if (!(ours.gaps.p50 <= TARGETS.stepOverheadP50Ms))
  missed.push(`per-step overhead p50 ${ms(ours.gaps.p50)} > ${TARGETS.stepOverheadP50Ms} ms`);
if (!(ours.tput.steady >= TARGETS.tenStepFlowsPerSecond))
  missed.push(`${rate(ours.tput.steady)} < ${TARGETS.tenStepFlowsPerSecond} ten-step flows/s`);
console.log(missed.length ? `targets missed: ${missed.join('; ')}` : 'all targets met');
process.exitCode = missed.length ? 1 : 0;
