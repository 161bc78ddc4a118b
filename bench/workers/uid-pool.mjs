// The cost of a uid of its own per process job (issue 34): the same trivial bash job run one at
// a time as the one sandbox user (FLOWMESH_SANDBOX_UIDS=off, as before) and as a leased uid killed
// clean after it, and a bare lease + give-back (the keeper's setpriv + sh). Root only.
// Run: npx tsc -b services/flow-orchestrator, then node_modules/.bin/node bench/workers/uid-pool.mjs
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BashRunner } from '../../services/flow-orchestrator/dist/runners/bash/bash.runner.js';
import { JobWorkdirs } from '../../services/flow-orchestrator/dist/runners/process/job-workdir.js';
import { SandboxUids } from '../../services/flow-orchestrator/dist/runners/isolation/sandbox-uids.js';
import { ms, summarize } from '../flows/stats.js';

const SAMPLES = Number(process.env.BENCH_PROCESS_SAMPLES ?? 60);
const root = await mkdtemp(join(tmpdir(), 'fm-bench-uids-'));
await chmod(root, 0o711);
const lockDir = await mkdtemp(join(tmpdir(), 'fm-bench-uid-locks-'));
const first = 1879113728 + 4096 * 16;
const pool = await SandboxUids.claim({ range: { first, last: first + 16 * 8 - 1 }, jobs: 8, lockDir });
const nobody = { user: { name: 'nobody', uid: 65534, gid: 65534 }, network: 'host' };
const options = { executable: 'bash', path: '/usr/bin:/bin', maxResultBytes: 1 << 20 };
const job = (i) => ({ id: `b${i}`, content: 'echo 1', args: {}, env: {}, timeoutMs: 30_000, memoryMb: 256 });

async function measure(label, fn) {
  for (let i = 0; i < 5; i++) await fn(i);
  const times = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now();
    await fn(i);
    times.push(performance.now() - started);
  }
  const used = process.cpuUsage(cpu);
  const s = summarize(times);
  console.log(
    `${label.padEnd(44)} p50 ${ms(s.p50).padStart(9)}  p99 ${ms(s.p99).padStart(9)}  worker CPU/job ${ms((used.user + used.system) / 1000 / SAMPLES)}`,
  );
}

console.log(
  `load average before: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; samples ${SAMPLES}`,
);
const shared = new BashRunner(options, new JobWorkdirs(join(root, 'a'), nobody));
const own = new BashRunner(options, new JobWorkdirs(join(root, 'b'), nobody, pool));
for (let round = 0; round < 2; round++) {
  await measure('bash job as nobody (uids off)', (i) => shared.run(job(i), () => undefined));
  await measure('bash job as a uid of its own, killed after', (i) => own.run(job(i), () => undefined));
  await measure('lease + give back alone (keeper kill)', async () => (await pool.lease()).release());
}
console.log(
  `load average after: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
pool.close();
await rm(root, { recursive: true, force: true });
await rm(lockDir, { recursive: true, force: true });
