// Ready time after a restart: how long each mesh process takes from its start (spawn) until its
// /readyz answers 200, when its database is already migrated and NATS already has the streams,
// as when `flowmesh start` restarts a process that died. Each process is started once (the first
// start migrates), stopped, then restarted BENCH_RESTARTS times (default 5); the registry runs
// throughout as the others' dependency. Prints p50, min and max per process, and where the time
// went in the slowest process's last start (from its own log timestamps).
// Run: npm run build, then npx node bench/ready/run.js   (NATS_URL and DATABASE_URL as for tests)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { httpPortVariable, MESH_PROCESSES, STREAMS } from '@flowmesh/contracts';
import { connectMesh } from '@flowmesh/messaging';
import pg from 'pg';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const RESTARTS = Number(process.env.BENCH_RESTARTS ?? 3);
const TARGET_P50_MS = 3_000;
const ONLY = process.env.BENCH_PROCESSES?.split(',').filter(Boolean);

function databaseUrlFor(name) {
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts one mesh process and resolves once its /readyz answers 200, with the time that took. */
async function start(meshProcess, env) {
  const port = await freePort();
  const main = fileURLToPath(new URL(`../../services/${meshProcess.service}/dist/main.js`, import.meta.url));
  const began = performance.now();
  // BENCH_NODE_ARGS: extra node flags (`--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, main], {
    env: {
      PATH: process.env.PATH ?? '',
      ...env,
      FLOWMESH_ROLE: meshProcess.role,
      FLOWMESH_HTTP_HOST: '127.0.0.1',
      [httpPortVariable(meshProcess.name)]: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = [];
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.setEncoding('utf8').on('data', (chunk) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop() ?? '';
      for (const line of parts) lines.push({ at: performance.now() - began, line });
    });
  }
  let exit;
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      exit = signal ?? `code ${code}`;
      resolve();
    }),
  );
  const deadline = began + 120_000;
  for (;;) {
    if (exit)
      throw new Error(`${meshProcess.name} exited (${exit}):\n${lines.map((l) => l.line).join('\n')}`);
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      async (response) => {
        await response.body?.cancel();
        return response.ok;
      },
      () => false,
    );
    if (ok) break;
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${meshProcess.name} was not ready within 120 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const readyMs = performance.now() - began;
  return {
    readyMs,
    cpuMs: processCpuMs(child.pid),
    lines,
    stop: async () => {
      if (!exit) child.kill('SIGTERM');
      await exited;
    },
  };
}

const CLOCK_TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system) a process has used, in ms (Linux /proc): what its start costs
 * whatever else the machine runs, where the wall time to ready grows with the load.
 */
function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main() {
  const suffix = randomBytes(3).toString('hex');
  const dbName = `fm_bench_ready_${suffix}`;
  const prefix = `benchready${suffix}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${dbName}"`);
  const env = {
    NATS_URL,
    DATABASE_URL: databaseUrlFor(dbName),
    FLOWMESH_SUBJECT_PREFIX: prefix,
    FLOWMESH_ADMIN_TOKEN: `fm_bench_${randomBytes(24).toString('base64url')}`,
    FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    // NODE_COMPILE_CACHE=<dir> tries V8's on-disk compile cache for the starts.
    ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
  };
  const registryProcess = MESH_PROCESSES.find((p) => p.name === 'resource-registry');
  const processes = MESH_PROCESSES.filter((p) => (ONLY ? ONLY.includes(p.name) : true));
  const results = [];
  let registry;
  try {
    registry = await start(registryProcess, env);
    console.log(
      `load average ${loadavg()[0].toFixed(2)}; ${RESTARTS} restarts per process, database migrated first`,
    );
    for (const meshProcess of processes) {
      const first = await start(meshProcess, env);
      await first.stop();
      const samples = [];
      const cpu = [];
      let last;
      for (let i = 0; i < RESTARTS; i++) {
        const run = await start(meshProcess, env);
        samples.push(run.readyMs);
        cpu.push(run.cpuMs);
        last = run;
        await run.stop();
      }
      samples.sort((a, b) => a - b);
      cpu.sort((a, b) => a - b);
      const row = {
        process: meshProcess.name,
        first: Math.round(first.readyMs),
        p50: Math.round(percentile(samples, 50)),
        min: Math.round(samples[0]),
        max: Math.round(samples[samples.length - 1]),
        cpu: Math.round(percentile(cpu, 50)),
        lines: last.lines,
      };
      results.push(row);
      console.log(
        `${row.process.padEnd(26)} first start ${String(row.first).padStart(6)} ms; restart p50 ${String(row.p50).padStart(6)} ms (min ${row.min}, max ${row.max}), CPU to ready p50 ${row.cpu} ms`,
      );
    }
    const slowest = [...results].sort((a, b) => b.p50 - a.p50)[0];
    if (slowest && process.env.BENCH_SHOW_LOG === '1') {
      console.log(`\n${slowest.process}, its last restart's log (ms since spawn):`);
      for (const { at, line } of slowest.lines)
        console.log(`${String(Math.round(at)).padStart(6)}  ${line.slice(0, 200)}`);
    }
    const over = results.filter((r) => r.p50 > TARGET_P50_MS);
    console.log(
      over.length === 0
        ? `every process ready within ${TARGET_P50_MS} ms (p50) after a restart`
        : `over ${TARGET_P50_MS} ms (p50): ${over.map((r) => `${r.process} ${r.p50} ms`).join(', ')}`,
    );
    process.exitCode = over.length === 0 ? 0 : 1;
  } finally {
    await registry?.stop();
    const conn = await connectMesh({ url: NATS_URL, name: 'bench-ready-cleanup', prefix });
    for (const stream of Object.values(STREAMS)) {
      await conn.jsm.streams.delete(conn.space.streamName(stream.name)).catch(() => false);
    }
    await conn.drain();
    await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
}

await main();
