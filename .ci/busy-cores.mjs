// Keeps N cores busy (default: all) for S seconds (default 1800), then stops by itself: the load
// under which `.ci/stress` runs the suite. Usage: node .ci/busy-cores.mjs [seconds] [cores]
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

const seconds = Number(process.argv[2] ?? 1800);
const cores = Number(process.argv[3] ?? availableParallelism());
const until = Date.now() + seconds * 1000;
const spin = `const until = ${until}; let x = 0; while (Date.now() < until) { for (let i = 0; i < 1e6; i++) x += i; }`;
for (let i = 0; i < cores; i++) new Worker(spin, { eval: true });
console.log(`busy-cores: ${cores} core(s) busy for ${seconds} s`);
