// gRPC benchmark: run a 10-step flow and wait for its result over the orchestrator's gRPC API,
// over HTTP (the Windmill-shaped run_wait_result) and over NATS (orchestrator.job.*), on one mesh
// in one run: p50/p99 at concurrency 1, flows per second with 100 in flight; beside them the
// floor of each transport (one round trip that does no work). See README.md.
// Run: npm run build && node_modules/.bin/node bench/grpc/run.js
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { createOrchestratorJobsClient, processPingContract, findMeshProcess } from '@flowmesh/contracts';
import { grpcMessageToJson, jsonToGrpcMessage, loadGrpcPackageDefinition } from '@flowmesh/contracts/grpc';
import { connectMesh, MeshClient } from '@flowmesh/messaging';
import { freePort, startMesh } from '@flowmesh/testing';
import { credentials, loadPackageDefinition, makeClientConstructor, Metadata } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { chainFlow } from '../flows/flowmesh-runner.js';
import { burst, ms, rate, ratio, summarize } from '../flows/stats.js';

process.env.NATS_URL ??= 'nats://127.0.0.1:4222';
process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
process.env.FLOWMESH_SKIP_BUILD ??= '1';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 30);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5);
const THROUGHPUT_SECONDS = Number(process.env.BENCH_THROUGHPUT_SECONDS ?? 10);
const THROUGHPUT_WARMUP_SECONDS = Number(process.env.BENCH_THROUGHPUT_WARMUP_SECONDS ?? 15);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 100);
const FLOOR_SAMPLES = 200;
const WAIT_MS = 25_000;

const flow = chainFlow(10).value;
const args = { n: 1 };
const EXPECTED = 11;

const adminToken = `fm_bench_${randomBytes(24).toString('base64url')}`;
const grpcPort = await freePort();
const loadBefore = loadavg();
console.log(
  `bench/grpc: ${cpus().length} cores, load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`,
);
const mesh = await startMesh({
  processes: ['resource-registry', 'flow-orchestrator', 'flow-orchestrator-worker'],
  env: {
    FLOWMESH_ADMIN_TOKEN: adminToken,
    FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
    FLOWMESH_GRPC_PORT: String(grpcPort),
    LOG_LEVEL: 'warn',
  },
  readyTimeoutMs: 120_000,
});
const conn = await connectMesh({
  url: mesh.env.NATS_URL,
  name: 'bench-grpc',
  prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
});
const client = new MeshClient(conn);
const natsJobs = createOrchestratorJobsClient(client);
const actor = { token: adminToken };
const httpBase = `${mesh.urls['flow-orchestrator']}/api/w/main`;

// A gRPC client as any Node client builds it from the protos.
const { flowmesh } = loadPackageDefinition(loadGrpcPackageDefinition());
const address = `127.0.0.1:${grpcPort}`;
const grpcJobs = new flowmesh.v1.Jobs(address, credentials.createInsecure());
const metadata = new Metadata();
metadata.set('authorization', `Bearer ${adminToken}`);
const unary = (method, requestType, replyType, request) =>
  new Promise((resolve, reject) =>
    grpcJobs[method](jsonToGrpcMessage(requestType, request), metadata, (error, reply) =>
      error ? reject(error) : resolve(grpcMessageToJson(replyType, reply)),
    ),
  );
const Health = makeClientConstructor(healthService, 'Health');
const health = new Health(address, credentials.createInsecure());

function check(result, how) {
  if (result !== EXPECTED)
    throw new Error(`${how}: the flow returned ${JSON.stringify(result)}, not ${EXPECTED}`);
}

/** Each transport's run-and-wait of the 10-step flow, timed from the first request to the result. */
const transports = {
  async grpc() {
    const started = performance.now();
    const { job_id } = await unary('RunFlow', 'flowmesh.v1.RunFlowRequest', 'flowmesh.v1.RunJobReply', {
      workspace: 'main',
      value: flow,
      args,
    });
    for (;;) {
      const reply = await unary('WaitResult', 'flowmesh.v1.WaitResultRequest', 'flowmesh.v1.JobResultReply', {
        workspace: 'main',
        id: job_id,
        timeout_ms: WAIT_MS,
      });
      if (reply.completed) {
        const took = performance.now() - started;
        check(reply.result, 'gRPC');
        return { ms: took };
      }
    }
  },
  async http() {
    const started = performance.now();
    const response = await fetch(`${httpBase}/jobs/run_wait_result/preview_flow`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ value: flow, args }),
    });
    const body = await response.json();
    const took = performance.now() - started;
    if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${JSON.stringify(body)}`);
    check(body, 'HTTP');
    return { ms: took };
  },
  async nats() {
    const started = performance.now();
    const { job_id } = await natsJobs.runFlow({ actor, workspace: 'main', value: flow, args });
    for (;;) {
      const reply = await natsJobs.waitResult({ actor, workspace: 'main', id: job_id, timeout_ms: WAIT_MS });
      if (reply.completed) {
        const took = performance.now() - started;
        check(reply.result, 'NATS');
        return { ms: took };
      }
    }
  },
};

/** One round trip of each transport that does no work: what the transport alone costs. */
const ping = processPingContract(findMeshProcess('flow-orchestrator', 'service'));
const floors = {
  grpc: () =>
    new Promise((resolve, reject) =>
      health.check({ service: '' }, (error) => (error ? reject(error) : resolve())),
    ),
  http: async () => {
    const response = await fetch(`${mesh.urls['flow-orchestrator']}/healthz`);
    await response.arrayBuffer();
  },
  nats: () => client.request(ping, {}),
};

async function floorOf(run) {
  const times = [];
  for (let i = 0; i < FLOOR_SAMPLES + 20; i++) {
    const started = performance.now();
    await run();
    if (i >= 20) times.push(performance.now() - started);
  }
  return summarize(times);
}

function line(label, value) {
  console.log(`${label.padEnd(44)} ${value}`);
}

/** A run that never throws: a failure is counted (and its first message kept) instead. */
const failures = Object.fromEntries(
  Object.keys(transports).map((name) => [name, { count: 0, first: undefined }]),
);
const counted = (name, run) => async () => {
  try {
    await run();
  } catch (error) {
    failures[name].count++;
    failures[name].first ??= error instanceof Error ? error.message : String(error);
  }
};

try {
  // The mesh warms (threads, connections, plans, JIT) once, on a burst as long for everyone.
  await burst(counted('nats', transports.nats), { seconds: THROUGHPUT_WARMUP_SECONDS, inFlight: IN_FLIGHT });
  const warmFailures = failures.nats.count;
  failures.nats.count = 0;
  if (warmFailures) console.log(`warm-up: ${warmFailures} runs failed: ${failures.nats.first}`);
  failures.nats.first = undefined;

  const latency = Object.fromEntries(Object.keys(transports).map((name) => [name, []]));
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    // One run of each per round: load from the rest of the machine falls on all alike.
    for (const [name, run] of Object.entries(transports)) {
      const { ms: took } = await run();
      if (i >= WARMUP) latency[name].push(took);
    }
  }
  console.log(`\nrun a 10-step flow and wait for its result (${SAMPLES} samples each, interleaved)`);
  for (const name of Object.keys(transports)) {
    const s = summarize(latency[name]);
    line(`  ${name.padEnd(5)} p50 / p99 at concurrency 1`, `${ms(s.p50)} / ${ms(s.p99)}`);
  }
  const p50 = (name) => summarize(latency[name]).p50;
  line('  gRPC p50 / NATS p50', ratio(p50('grpc'), p50('nats')));
  line('  gRPC p50 / HTTP p50', ratio(p50('grpc'), p50('http')));

  console.log(`\nfloor: one round trip doing no work (${FLOOR_SAMPLES} samples)`);
  const floorLabels = {
    grpc: 'gRPC grpc.health.v1.Health/Check',
    http: 'HTTP GET /healthz',
    nats: 'NATS orchestrator ping',
  };
  for (const [name, run] of Object.entries(floors)) {
    const floor = await floorOf(run);
    line(`  ${floorLabels[name]} p50`, ms(floor.p50));
  }

  console.log(
    `\nflows/s with ${IN_FLIGHT} in flight (${THROUGHPUT_SECONDS} s each in two rounds of opposite order; completions over the whole bursts beside it)`,
  );
  // Two rounds, the second in the opposite order, each transport half the time per round: a
  // machine whose load drifts weighs on every transport alike.
  const names = Object.keys(transports);
  const totals = Object.fromEntries(names.map((name) => [name, { flows: 0, seconds: 0, steady: [] }]));
  for (const order of [names, [...names].reverse()]) {
    for (const name of order) {
      const run = counted(name, transports[name]);
      await burst(run, { seconds: 2, inFlight: IN_FLIGHT });
      const started = performance.now();
      const result = await burst(run, { seconds: THROUGHPUT_SECONDS / 2, inFlight: IN_FLIGHT });
      totals[name].flows += result.flows;
      totals[name].seconds += (performance.now() - started) / 1000;
      totals[name].steady.push(result.steady);
    }
  }
  for (const name of names) {
    const { flows, seconds, steady } = totals[name];
    const failed = failures[name].count ? `; ${failures[name].count} failed: ${failures[name].first}` : '';
    const mean = steady.reduce((sum, value) => sum + value, 0) / steady.length;
    line(`  ${name}`, `${rate(mean)} (${rate(flows / seconds)}, ${flows} flows${failed})`);
  }
  const errors = mesh.logs('flow-orchestrator').filter((l) => /"level":(50|60)|ERROR/.test(l));
  if (errors.length > 0) console.log(`\nflow-orchestrator errors (last 5):\n${errors.slice(-5).join('\n')}`);
} finally {
  grpcJobs.close();
  health.close();
  await conn.drain();
  await mesh.stop();
  const loadAfter = loadavg();
  console.log(`\nload average after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}`);
}
