// A flow of many modules against as many steps in ten-step flows (issue 34 point 6): one flow of
// BENCH_MODULES (10 000) `identity` steps, and BENCH_MODULES / 10 ten-step flows of them with
// BENCH_IN_FLIGHT (100) in flight, on the same mesh, one after the other. Identity steps (each
// passes `previous_result` on), because a flow of 10 000 script steps is larger than NATS'
// max_payload (1 MB) for `orchestrator.job.run_flow`. Prints steps per second of both and their
// ratio: a step's cost must not grow with its flow's size. See README.md.
// Run: npm run build && node_modules/.bin/node bench/flows/large-flow.js
import { cpus } from 'node:os';
import { startFlowmesh } from './flowmesh-runner.js';
import { burst, loadAverage } from './stats.js';

const MODULES = Number(process.env.BENCH_MODULES ?? 10_000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 100);
const WARMUP_FLOWS = Number(process.env.BENCH_WARMUP_FLOWS ?? 500);

/** A flow of `modules` identity steps: it returns its input `n`. */
function identityFlow(modules) {
  return {
    summary: `${modules} identity steps`,
    value: {
      modules: Array.from({ length: modules }, (_, i) => ({ id: `s${i + 1}`, value: { type: 'identity' } })),
    },
  };
}

console.log(`bench/flows/large-flow: ${cpus().length} cores, load average ${loadAverage()}`);
const fm = await startFlowmesh();
try {
  const ten = identityFlow(10);
  // Threads, connections and plans warm first (untimed).
  await burst((i) => fm.run(ten, { n: i }), { flows: WARMUP_FLOWS, inFlight: IN_FLIGHT });

  const flows = Math.ceil(MODULES / 10);
  let started = performance.now();
  const tenStep = await burst(
    async (i) => {
      const { id } = await fm.run(ten, { n: i });
      if (i % 97 === 0) {
        const job = await fm.get(id);
        if (job.result?.n !== i) throw new Error(`flow ${i} returned ${JSON.stringify(job.result)}`);
      }
    },
    { flows, inFlight: IN_FLIGHT },
  );
  const tenStepSeconds = (performance.now() - started) / 1000;

  const large = identityFlow(MODULES);
  started = performance.now();
  const { id } = await fm.run(large, { n: 7 });
  const largeSeconds = (performance.now() - started) / 1000;
  // The result alone: the whole job (10 000 modules' status) is over NATS' max_payload.
  const job = await fm.getResult(id);
  if (job.result?.n !== 7)
    throw new Error(`the ${MODULES}-module flow returned ${JSON.stringify(job.result)}, not 7`);

  const line = (label, value) => console.log(`${label.padEnd(44)} ${value}`);
  console.log('');
  line(
    `${flows} ten-step flows, ${IN_FLIGHT} in flight`,
    `${tenStepSeconds.toFixed(1)} s, ${((flows * 10) / tenStepSeconds).toFixed(0)} steps/s (${tenStep.steady.toFixed(1)} flows/s steady)`,
  );
  line(
    `one flow of ${MODULES} modules`,
    `${largeSeconds.toFixed(1)} s, ${(MODULES / largeSeconds).toFixed(0)} steps/s`,
  );
  line('large flow time / ten-step flows time', `${(largeSeconds / tenStepSeconds).toFixed(2)}x`);
  console.log(`load average after ${loadAverage()}`);
} finally {
  await fm.stop();
}
