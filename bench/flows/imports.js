// Flows whose TypeScript steps import a Node built-in (`node:fs`), one step and BENCH_STEPS (5)
// steps, run one after the other, beside the same flows without the import, in the same run: wall
// time in all and per flow (p50/p99), and the CPU the worker spent per flow (its process and its
// thread sandbox, from /proc, threads that ended included). Issue 21 point 6: 150 one-step such
// flows took 132 s against 11 s.
// Run: npm run build && node_modules/.bin/node bench/flows/imports.js
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { chainFlow as chain, startFlowmesh } from './flowmesh-runner.js';
import { ms, ratio, summarize } from './stats.js';

const FLOWS = Number(process.env.BENCH_FLOWS ?? 150);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);

const STEPS = Number(process.env.BENCH_STEPS ?? 5);

const PLAIN = 'export function main(x: number) { return x + 1; }';
const IMPORTS =
  "import { existsSync } from 'node:fs';\nexport function main(x: number) { return existsSync('/') ? x + 1 : x; }";
/** Each kind's flow and the steps it has. */
const KINDS = {
  plain: { flow: chain(1, PLAIN), steps: 1 },
  'node:fs': { flow: chain(1, IMPORTS), steps: 1 },
  [`plain x${STEPS}`]: { flow: chain(STEPS, PLAIN), steps: STEPS },
  [`node:fs x${STEPS}`]: { flow: chain(STEPS, IMPORTS), steps: STEPS },
};

const read = (path) => {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return undefined;
  }
};
const statOf = (pid) => {
  const text = read(`/proc/${pid}/stat`);
  if (!text) return undefined;
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { ppid: fields[1], ticks: Number(fields[11]) + Number(fields[12]) };
};

/** CPU ticks of this mesh's worker process and the processes under it (the thread sandbox). */
function workerTicks(mark) {
  const all = new Map();
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    const stat = statOf(pid);
    if (stat) all.set(pid, stat);
  }
  const roots = [...all.keys()].filter((pid) => {
    const env = read(`/proc/${pid}/environ`) ?? '';
    return env.includes(mark) && env.includes('FLOWMESH_ROLE=worker');
  });
  const counted = new Set(roots);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, { ppid }] of all)
      if (!counted.has(pid) && counted.has(ppid)) {
        counted.add(pid);
        grew = true;
      }
  }
  let ticks = 0;
  for (const pid of counted) ticks += all.get(pid).ticks;
  return ticks;
}

const loadBefore = loadavg();
const fm = await startFlowmesh();
const mark = `FLOWMESH_SUBJECT_PREFIX=${fm.subjectPrefix}\0`;
const results = Object.fromEntries(
  Object.keys(KINDS).map((kind) => [kind, { times: [], wallMs: 0, ticks: 0 }]),
);
try {
  for (const [kind, { flow, steps }] of Object.entries(KINDS)) {
    for (let i = 0; i < WARMUP; i++) await fm.run(flow, { n: i });
    const { id } = await fm.run(flow, { n: 41 });
    const job = await fm.get(id);
    if (job.result !== 41 + steps)
      throw new Error(`a ${kind} flow returned ${JSON.stringify(job.result)}, not ${41 + steps}`);
  }
  // In rounds, kinds in turn, so load from the rest of the machine falls on both alike.
  const perRound = Math.ceil(FLOWS / ROUNDS);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [kind, { flow }] of Object.entries(KINDS)) {
      const result = results[kind];
      const ticksBefore = workerTicks(mark);
      const started = performance.now();
      for (let i = 0; i < perRound && result.times.length < FLOWS; i++)
        result.times.push((await fm.run(flow, { n: i })).ms);
      result.wallMs += performance.now() - started;
      result.ticks += workerTicks(mark) - ticksBefore;
    }
  }
} finally {
  await fm.stop();
}
const loadAfter = loadavg();

const load = (values) => values.map((l) => l.toFixed(2)).join(' ');
console.log(
  `bench/flows/imports: ${FLOWS} flows of each kind (one step, ${STEPS} steps), one at a time, in ${ROUNDS} rounds`,
);
for (const [kind, { times, wallMs, ticks }] of Object.entries(results)) {
  const stats = summarize(times);
  console.log(
    `${kind.padEnd(12)} ${(wallMs / 1000).toFixed(1).padStart(6)} s in all   per flow p50 ${ms(stats.p50).padStart(9)}  p99 ${ms(stats.p99).padStart(9)}   worker CPU ${((ticks * 10) / times.length).toFixed(1)} ms a flow`,
  );
}
for (const [imports, plain] of [
  ['node:fs', 'plain'],
  [`node:fs x${STEPS}`, `plain x${STEPS}`],
]) {
  const a = results[imports];
  const b = results[plain];
  console.log(
    `${imports} / ${plain}: time in all ${ratio(a.wallMs, b.wallMs)}, p50 ${ratio(summarize(a.times).p50, summarize(b.times).p50)}, worker CPU ${ratio(a.ticks, b.ticks)}`,
  );
}
console.log(`load average before ${load(loadBefore)}, after ${load(loadAfter)}`);
