// The whole mesh's ready time after a restart: `flowmesh start --no-example` from its spawn until
// its API answers an authenticated request through the entry point (GET /api/w/main/schedules/list
// with the admin token: the registry authenticates, the orchestrator answers), and until it prints
// `mesh ready` (every process's /readyz answered 200). On a fresh database: the first start
// migrates, then the mesh is stopped (SIGINT) and started again BENCH_RESTARTS times (default 3),
// as an operator restarting `flowmesh start` would.
// Run: npm run build, then npx node bench/ready/mesh.js   (NATS_URL and DATABASE_URL as for tests)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const RESTARTS = Number(process.env.BENCH_RESTARTS ?? 3);
const TARGET_P50_MS = 3_000;
const CLI = fileURLToPath(new URL('../../cli/dist/main.js', import.meta.url));

const HTTP_PORT = process.env.FLOWMESH_HTTP_PORT ?? '8000';

/** Polls the API with the admin token (written by the first start) until it answers 200. */
async function apiAnswers(cwd, began) {
  for (;;) {
    try {
      const token = readFileSync(join(cwd, '.flowmesh', 'admin-token'), 'utf8').trim();
      const response = await fetch(`http://127.0.0.1:${HTTP_PORT}/api/w/main/schedules/list`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (response.status === 200) return performance.now() - began;
    } catch {
      // not listening yet, or no token yet
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts the mesh and resolves with the time to its API's answer, to `mesh ready`, and a stop. */
function startMesh(cwd, env) {
  const began = performance.now();
  const api = apiAnswers(cwd, began);
  const child = spawn(process.execPath, [CLI, 'start', '--no-example'], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`mesh not ready in 120 s:\n${log.slice(-20).join('')}`)),
      120_000,
    );
    const onData = (chunk) => {
      log.push(chunk.toString());
      if (!chunk.toString().includes('mesh ready')) return;
      clearTimeout(timer);
      const readyMs = performance.now() - began;
      api.then((apiMs) =>
        resolve({
          apiMs,
          readyMs,
          stop: () =>
            new Promise((done) => {
              child.once('exit', done);
              child.kill('SIGINT');
            }),
        }),
      );
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`flowmesh start exited (${code}):\n${log.slice(-20).join('')}`)),
    );
  });
}

const database = `bench_mesh_ready_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: DATABASE_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
const url = new URL(DATABASE_URL);
url.pathname = `/${database}`;
const cwd = mkdtempSync(join(tmpdir(), 'flowmesh-ready-'));
const env = {
  ...process.env,
  NATS_URL,
  DATABASE_URL: url.toString(),
  FLOWMESH_SUBJECT_PREFIX: `rd${randomBytes(3).toString('hex')}`,
};
try {
  console.log(
    `load average ${loadavg()[0].toFixed(2)}; the mesh started once (migrating), then ${RESTARTS} restarts`,
  );
  const first = await startMesh(cwd, env);
  await first.stop();
  const apis = [];
  const meshes = [];
  for (let i = 0; i < RESTARTS; i++) {
    const mesh = await startMesh(cwd, env);
    apis.push(mesh.apiMs);
    meshes.push(mesh.readyMs);
    await mesh.stop();
  }
  const line = (label, firstMs, times) => {
    times.sort((a, b) => a - b);
    console.log(
      `${label.padEnd(14)} first start ${firstMs.toFixed(0)} ms; restart p50 ${times[Math.floor(times.length / 2)].toFixed(0)} ms ` +
        `(min ${times[0].toFixed(0)}, max ${times.at(-1).toFixed(0)})`,
    );
    return times[Math.floor(times.length / 2)];
  };
  const p50 = line('API answers', first.apiMs, apis);
  line('mesh ready', first.readyMs, meshes);
  console.log(
    p50 <= TARGET_P50_MS
      ? `the API answers within ${TARGET_P50_MS} ms (p50) of a restart`
      : `over ${TARGET_P50_MS} ms`,
  );
  process.exitCode = p50 <= TARGET_P50_MS ? 0 : 1;
} finally {
  rmSync(cwd, { recursive: true, force: true });
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
}
