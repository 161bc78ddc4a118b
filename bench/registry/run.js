// Registry benchmark: get-resource-with-interpolation over NATS (registry.resource
// .get_value_interpolated, the typed client, validation both ways, as a non-admin user of a
// folder) at concurrency 1 and 32, beside a plain Postgres primary-key read of the same row in
// the same run. The registry runs as its own process, built (`npm run build`).
// Run: npm run build (or npx tsc -b services/resource-registry), then npx node bench/registry/run.js
import { randomBytes } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { createRegistryIdentityClient, createRegistryItemsClient, STREAMS } from '@flowmesh/contracts';
import { connectMesh, MeshClient } from '@flowmesh/messaging';
import pg from 'pg';
import { startRegistryProcess } from './registry-process.js';
import { ms, rate, summarize } from './stats.js';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const N = Number(process.env.BENCH_REQUESTS ?? 5_000);
const CONCURRENCY = [1, 32];
const TARGET_P50_MS = 1;
const TARGET_RATE = 3_000;

const WORKSPACE = 'main';
const AGENT = 'f/bench/agent';

function databaseUrlFor(name) {
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** `send(i)` N times with `concurrency` in flight: each call's latency, and calls per second. */
async function measure(send, concurrency) {
  const samples = new Array(N);
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < N) {
        const i = next++;
        const begin = performance.now();
        await send(i);
        samples[i] = performance.now() - begin;
      }
    }),
  );
  return { ...summarize(samples), rate: N / ((performance.now() - start) / 1000) };
}

/** The workspace the benchmark reads: a folder user, a secret, a provider and an agent linked to it. */
async function seed(client, adminToken) {
  const identity = createRegistryIdentityClient(client);
  const items = createRegistryItemsClient(client);
  const admin = { actor: { token: adminToken }, workspace: WORKSPACE };
  await identity.addUser({ ...admin, email: 'bench@example.test', username: 'bench' });
  const { token } = await identity.createApiToken({ ...admin, username: 'bench', label: 'bench' });
  await identity.createFolder({ ...admin, name: 'bench', writers: ['u/bench'] });
  const bench = { actor: { token }, workspace: WORKSPACE };
  await items.createVariable({
    ...bench,
    path: 'f/bench/openai_key',
    value: `sk-${randomBytes(16).toString('hex')}`,
    is_secret: true,
  });
  await items.createResource({
    ...bench,
    path: 'f/bench/openai',
    resource_type: 'openai',
    value: { api_key: '$var:f/bench/openai_key' },
  });
  await items.createResource({
    ...bench,
    path: AGENT,
    resource_type: 'ai_agent',
    value: {
      provider: { kind: 'openai', resource: '$res:f/bench/openai', model: 'gpt-4o' },
      system_prompt: 'You answer questions about invoices, briefly.',
      temperature: 0.2,
      max_iterations: 8,
      tools: [{ id: 'docs', value: { tool_type: 'mcp', resource_path: 'f/bench/docs' } }],
    },
  });
  return { items, bench };
}

function passThrough(...names) {
  return Object.fromEntries(
    names.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]]),
  );
}

function line(label, result) {
  return `  ${label.padEnd(34)} p50 ${ms(result.p50).padStart(10)}  p99 ${ms(result.p99).padStart(10)}  ${rate(result.rate).padStart(9)}`;
}

async function main() {
  const prefix = `bench${randomBytes(3).toString('hex')}`;
  const dbName = `bench_registry_${randomBytes(3).toString('hex')}`;
  const adminToken = `fm_bench_${randomBytes(24).toString('base64url')}`;
  const [load1, load5] = loadavg();
  console.log(
    `node ${process.version}, ${availableParallelism()} cores, load average ${load1.toFixed(2)} (1 min) ${load5.toFixed(2)} (5 min), ` +
      `NATS ${NATS_URL}, ${N} requests per run` +
      (process.env.FLOWMESH_REGISTRY_READ_CACHE_MS === undefined
        ? ''
        : `, FLOWMESH_REGISTRY_READ_CACHE_MS=${process.env.FLOWMESH_REGISTRY_READ_CACHE_MS}`),
  );

  const conn = await connectMesh({ url: NATS_URL, name: 'bench-registry-client', prefix });
  const client = new MeshClient(conn);
  const registry = await startRegistryProcess({
    NATS_URL,
    DATABASE_URL: databaseUrlFor(dbName),
    FLOWMESH_SUBJECT_PREFIX: prefix,
    FLOWMESH_ADMIN_TOKEN: adminToken,
    FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
    PORT: '0',
    // info: the registry's "ready" line is what the benchmark waits for.
    LOG_LEVEL: 'info',
    // Passed on when set, to compare (FLOWMESH_REGISTRY_READ_CACHE_MS=0: without the read cache).
    ...passThrough('FLOWMESH_REGISTRY_READ_CACHE_MS', 'FLOWMESH_AUTH_CACHE_MS'),
  });
  const pool = new pg.Pool({ connectionString: databaseUrlFor(dbName), max: 10 });
  try {
    const { items, bench } = await seed(client, adminToken);
    const resolved = await items.getResourceValueInterpolated({ ...bench, path: AGENT });
    if (typeof resolved.value?.provider?.resource?.api_key !== 'string') {
      throw new Error(`the agent did not resolve to its provider's key: ${JSON.stringify(resolved.value)}`);
    }

    const viaRegistry = () => items.getResourceValueInterpolated({ ...bench, path: AGENT });
    const plainRead = () =>
      pool.query(`SELECT "value" FROM "registry"."resource" WHERE "workspace_id" = $1 AND "path" = $2`, [
        WORKSPACE,
        AGENT,
      ]);

    // Warm up both paths (JIT, pools, caches) before measuring.
    await measure(viaRegistry, 8);
    await measure(plainRead, 8);

    const passes = [];
    for (const concurrency of CONCURRENCY) {
      const baseline = await measure(plainRead, concurrency);
      const cpuBefore = registry.cpuMs();
      const clientBefore = process.cpuUsage();
      const registryRun = await measure(viaRegistry, concurrency);
      const cpuPerRequest = (registry.cpuMs() - cpuBefore) / N;
      const clientCpu = process.cpuUsage(clientBefore);
      const clientPerRequest = (clientCpu.user + clientCpu.system) / 1000 / N;
      console.log(`\nconcurrency ${concurrency}`);
      console.log(line('Postgres primary-key read', baseline));
      console.log(line('registry get_value_interpolated', registryRun));
      console.log(
        `  ratio p50 ${(registryRun.p50 / baseline.p50).toFixed(2)}x, throughput ${(registryRun.rate / baseline.rate).toFixed(2)}x of the plain read; ` +
          `registry CPU ${cpuPerRequest.toFixed(3)} ms per request (${Math.round(1000 / cpuPerRequest).toLocaleString('en-US')}/s per core if it had one to itself), ` +
          `client CPU ${clientPerRequest.toFixed(3)} ms`,
      );
      if (concurrency === 1) {
        const pass = registryRun.p50 <= TARGET_P50_MS;
        passes.push(pass);
        console.log(`  target p50 <= ${TARGET_P50_MS} ms: ${pass ? 'PASS' : 'FAIL'}`);
      } else {
        const pass = registryRun.rate >= TARGET_RATE;
        passes.push(pass);
        console.log(
          `  target >= ${TARGET_RATE.toLocaleString('en-US')} requests/s: ${pass ? 'PASS' : 'FAIL'}`,
        );
      }
    }
    const [end1] = loadavg();
    console.log(`\nload average at the end: ${end1.toFixed(2)} (1 min)`);
    process.exitCode = passes.every(Boolean) ? 0 : 1;
  } finally {
    await pool.end();
    await registry.stop();
    // Each run's prefix has its own streams (1 GiB of EVENTS and of WORK reserved each): leaving
    // them behind runs the shared server out of JetStream storage within a few dozen runs.
    for (const stream of Object.values(STREAMS)) {
      await conn.jsm.streams.delete(conn.space.streamName(stream.name)).catch(() => false);
    }
    await conn.drain();
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
}

await main();
