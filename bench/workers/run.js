// Workers benchmark: the cost of one flow expression in the QuickJS sandbox and of one trivial
// script job per runner, each beside a baseline measured in the same run on the same machine:
// a fresh node:vm context and a bare QuickJS runtime+context in this thread (expressions); a
// bare postMessage round trip to a worker thread and a new Node process (TypeScript jobs); a
// bare `sh -c true` process (python3 and bash jobs).
// Run: npx tsc -b services/flow-orchestrator, then node_modules/.bin/node bench/workers/run.js
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import vm from 'node:vm';
import { Worker } from 'node:worker_threads';
import { newQuickJSWASMModule } from 'quickjs-emscripten';
import { QuickJsExpressionSandbox } from '../../services/flow-orchestrator/dist/sandbox/quickjs-expression.sandbox.js';
import { TypeScriptRunner } from '../../services/flow-orchestrator/dist/runners/typescript/typescript.runner.js';
import { PythonRunner } from '../../services/flow-orchestrator/dist/runners/python/python.runner.js';
import { BashRunner } from '../../services/flow-orchestrator/dist/runners/bash/bash.runner.js';
import { JobWorkdirs } from '../../services/flow-orchestrator/dist/runners/process/job-workdir.js';
import { ms, ratio, summarize } from '../flows/stats.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 1000);
const PROCESS_SAMPLES = Number(process.env.BENCH_PROCESS_SAMPLES ?? 60);
const WARMUP = 50;

async function measure(samples, fn) {
  for (let i = 0; i < Math.min(WARMUP, samples); i++) await fn(i);
  const times = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await fn(i);
    times.push(performance.now() - started);
  }
  return summarize(times);
}

async function throughput(total, inFlight, fn) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) await fn(next++);
    }),
  );
  return (total / (performance.now() - started)) * 1000;
}

function row(label, stats, baseline) {
  const base = baseline ? `   vs ${baseline.label}: p50 ${ratio(stats.p50, baseline.stats.p50)}` : '';
  console.log(
    `${label.padEnd(58)} p50 ${ms(stats.p50).padStart(9)}  p99 ${ms(stats.p99).padStart(9)}${base}`,
  );
}

console.log(
  `load average before: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; samples ${SAMPLES}`,
);

// --- expressions ---------------------------------------------------------------------------
const EXPR = 'results.a.items.map((x) => x * 2).reduce((s, x) => s + x, 0) + flow_input.n';
const context = {
  flow_input: { n: 1, iter: { value: 'v', index: 3 } },
  results: { a: { items: [1, 2, 3, 4] } },
  previous_result: 'p',
};
const expected = 21;

const vmStats = await measure(SAMPLES, () => {
  const value = vm.runInNewContext(`(${EXPR})`, structuredClone(context));
  if (value !== expected) throw new Error(`node:vm gave ${value}`);
});
const wasm = await newQuickJSWASMModule();
const quickStats = await measure(SAMPLES, () => {
  const runtime = wasm.newRuntime();
  const guest = runtime.newContext();
  const result = guest.evalCode(
    `const flow_input = ${JSON.stringify(context.flow_input)}; const results = ${JSON.stringify(context.results)}; ${EXPR}`,
  );
  const value = guest.dump(guest.unwrapResult(result));
  guest.dispose();
  runtime.dispose();
  if (value !== expected) throw new Error(`quickjs gave ${value}`);
});
const sandbox = new QuickJsExpressionSandbox({ threads: 2 });
sandbox.warmUp();
await sandbox.evaluate('1', {}, { fieldPath: 'warm' });
const sandboxStats = await measure(SAMPLES, async () => {
  const value = await sandbox.evaluate(EXPR, context, { fieldPath: 'bench' });
  if (value !== expected) throw new Error(`sandbox gave ${value}`);
});
const sandboxRate = await throughput(SAMPLES * 2, 16, () =>
  sandbox.evaluate(EXPR, context, { fieldPath: 'bench' }),
);
await sandbox.close();

console.log('\nexpression:', EXPR);
row('fresh node:vm context, this thread (baseline, not a sandbox)', vmStats);
row('bare QuickJS runtime+context, this thread (baseline)', quickStats);
row('QuickJsExpressionSandbox.evaluate (thread, watchdog)', sandboxStats, {
  label: 'node:vm',
  stats: vmStats,
});
console.log(`${'sandbox throughput, 16 in flight, 2 threads'.padEnd(58)} ${sandboxRate.toFixed(0)}/s`);

// --- TypeScript jobs -----------------------------------------------------------------------
const echoWorker = new Worker(
  'const { parentPort } = require("node:worker_threads"); parentPort.on("message", (m) => parentPort.postMessage(m));',
  { eval: true },
);
await new Promise((resolve) => echoWorker.once('online', resolve));
const roundTrip = await measure(
  SAMPLES,
  () =>
    new Promise((resolve) => {
      echoWorker.once('message', resolve);
      echoWorker.postMessage({ x: 1 });
    }),
);
await echoWorker.terminate();

const typescript = new TypeScriptRunner({
  warmThreads: 2,
  defaultMemoryMb: 256,
  jobsPerThread: 100_000,
  idleMs: 60_000,
  maxResultBytes: 2 * 1024 * 1024,
});
typescript.start();
const tsJob = (i, content) => ({
  id: `bench-${i}`,
  workspace: 'main',
  language: 'bun',
  content,
  args: { x: i },
  env: { WM_JOB_ID: `bench-${i}` },
  timeoutMs: 30_000,
  memoryMb: 256,
});
const TRIVIAL = 'export function main(x: number): number { return x + 1; }';
await typescript.run(tsJob(0, TRIVIAL), () => {});
const tsStats = await measure(SAMPLES, async (i) => {
  const value = await typescript.run(tsJob(i, TRIVIAL), () => {});
  if (value !== i + 1) throw new Error(`ts job gave ${value}`);
});
const tsRate = await throughput(SAMPLES, 8, (i) => typescript.run(tsJob(i, TRIVIAL), () => {}));
const IMPORTING =
  'import { createHash } from "node:crypto";\nexport function main(x: number) { return createHash("sha1").update(String(x)).digest("hex").length; }';
const importStats = await measure(Math.min(SAMPLES, 100), async (i) => {
  const value = await typescript.run(tsJob(i, IMPORTING), () => {});
  if (value !== 40) throw new Error(`importing job gave ${value}`);
});
await typescript.close();

const nodeProcess = await measure(Math.min(PROCESS_SAMPLES, 30), () =>
  run(process.execPath, ['-e', 'process.stdout.write(String(1 + 1))']),
);

console.log('\nTypeScript job: export function main(x: number) { return x + 1 }');
row('postMessage round trip to a worker thread (baseline)', roundTrip);
row('new Node process, node -e (baseline)', nodeProcess);
row('TypeScriptRunner.run, warm thread, fresh context per job', tsStats, {
  label: 'new process',
  stats: nodeProcess,
});
row('  same, a job importing node:crypto (its thread retired)', importStats);
console.log(`${'TypeScript jobs per second, 8 in flight'.padEnd(58)} ${tsRate.toFixed(0)}/s`);

// --- subprocess jobs -----------------------------------------------------------------------
const root = await mkdtemp(join(tmpdir(), 'bench-workers-'));
const workdirs = new JobWorkdirs(root);
const processOptions = { path: process.env.PATH ?? '/usr/bin:/bin', maxResultBytes: 2 * 1024 * 1024 };
const python = new PythonRunner({ ...processOptions, executable: 'python3' }, workdirs);
const bash = new BashRunner({ ...processOptions, executable: 'bash' }, workdirs);
const shTrue = await measure(PROCESS_SAMPLES, () => run('/bin/sh', ['-c', 'true']));
const pythonBare = await measure(PROCESS_SAMPLES, () => run('python3', ['-c', 'pass']));
const pyStats = await measure(PROCESS_SAMPLES, async (i) => {
  const value = await python.run(
    { ...tsJob(i, 'def main(x):\n    return x + 1'), language: 'python3' },
    () => {},
  );
  if (value !== i + 1) throw new Error(`python job gave ${value}`);
});
const bashStats = await measure(PROCESS_SAMPLES, async (i) => {
  const value = await bash.run({ ...tsJob(i, 'x="$1"\necho $((x + 1))'), language: 'bash' }, () => {});
  if (value !== String(i + 1)) throw new Error(`bash job gave ${value}`);
});
await rm(root, { recursive: true, force: true });

console.log('\nsubprocess jobs (x + 1)');
row('sh -c true (baseline)', shTrue);
row('python3 -c pass (baseline)', pythonBare);
row('PythonRunner.run', pyStats, { label: 'python3 -c pass', stats: pythonBare });
row('BashRunner.run', bashStats, { label: 'sh -c true', stats: shTrue });
console.log(
  `\nload average after: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);

function run(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.resume();
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${code}`))));
  });
}
