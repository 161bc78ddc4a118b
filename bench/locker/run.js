// dependency-locker benchmark.
//
// 1. Cascade planning: `planCascade` over a workspace map where 1 000 owners depend on the
//    redeployed script (scripts importing it and each other, agents using it as a tool or
//    importing it, flows linking those agents, diamonds and a cycle). Floor, same run: one pass
//    grouping the edges by what they import, the least any reverse walk does. Target: p50 <= 50 ms.
// 2. Lock time of a script importing 20 npm packages from a warm cache: `UnitLocker.lock` in the
//    running service (the import scan, the requirements, the kept lock read from Postgres), after a
//    first lock resolved them with npm against a local packument registry. Floor, same run: the
//    primary-key read of that kept lock with a plain pg client. Target: p50 <= 100 ms.
// Samples interleave floor and subject, so load from elsewhere on the machine falls on both alike.
// Run: npx tsc -b (or npm run build), then NATS_URL=... DATABASE_URL=... node bench/locker/run.js
import { createHash } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import {
  dependencyEdge,
  planCascade,
} from '../../services/dependency-locker/dist/cascade/cascade-planner.js';
import { dependencyLockerDefinition } from '../../services/dependency-locker/dist/dependency-locker.definition.js';
import { UnitLocker } from '../../services/dependency-locker/dist/locking/unit-locker.service.js';
import { startPackumentRegistry, startTestService } from '../../libs/testing/dist/index.js';
import { summarize } from '../memory/stats.js';

process.env.NATS_URL ??= 'nats://127.0.0.1:4222';
process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const WARMUP = 20;
const PLAN_TARGET_MS = 50;
const LOCK_TARGET_MS = 100;
const fmt = (v) => `${v.toFixed(3)} ms`.padStart(11);

function interleaved(floor, subject, samples) {
  const f = [];
  const s = [];
  for (let i = 0; i < WARMUP; i++) (floor(), subject());
  for (let i = 0; i < samples; i++) {
    let t = performance.now();
    floor();
    f.push(performance.now() - t);
    t = performance.now();
    subject();
    s.push(performance.now() - t);
  }
  return { floor: summarize(f), subject: summarize(s) };
}

async function interleavedAsync(floor, subject, samples) {
  const f = [];
  const s = [];
  for (let i = 0; i < WARMUP; i++) (await floor(), await subject());
  for (let i = 0; i < samples; i++) {
    let t = performance.now();
    await floor();
    f.push(performance.now() - t);
    t = performance.now();
    await subject();
    s.push(performance.now() - t);
  }
  return { floor: summarize(f), subject: summarize(s) };
}

/** 1 000 dependents of f/lib/root, every edge kind, diamonds and one cycle. */
function workspaceMap() {
  const edges = [];
  const edge = (importerKind, importerPath, node, edgeKind, importedKind, importedPath) =>
    edges.push(
      dependencyEdge({ kind: importerKind, path: importerPath }, node, edgeKind, {
        kind: importedKind,
        path: importedPath,
      }),
    );
  for (let i = 0; i < 400; i++) edge('script', `f/lib/s${i}`, '', 'relative_import', 'script', 'f/lib/root');
  for (let i = 0; i < 300; i++) {
    edge('script', `f/app/t${i}`, '', 'relative_import', 'script', `f/lib/s${i}`);
    edge('script', `f/app/t${i}`, '', 'relative_import', 'script', `f/lib/s${(i * 7) % 400}`); // diamonds
  }
  edge('script', 'f/lib/s0', '', 'relative_import', 'script', 'f/app/t1'); // a cycle
  for (let i = 0; i < 200; i++) {
    edge('agent', `f/ai/a${i}`, 'lookup', 'path_tool', 'script', `f/lib/s${i}`);
    edge('agent', `f/ai/a${i}`, 'shout', 'relative_import', 'script', `f/app/t${i}`);
  }
  for (let i = 0; i < 100; i++) {
    edge('flow', `f/flows/f${i}`, 'ask', 'linked_agent', 'agent', `f/ai/a${i * 2}`);
    edge('flow', `f/flows/f${i}`, 'step', 'relative_import', 'script', `f/lib/s${i + 200}`);
  }
  // Unrelated owners the walk must not touch.
  for (let i = 0; i < 5_000; i++)
    edge('script', `f/other/o${i}`, '', 'relative_import', 'script', `f/other/o${i + 1}`);
  return edges;
}

function groupByImported(edges) {
  const byImported = new Map();
  for (const e of edges) {
    const key = `${e.importedKind}:${e.importedPath}`;
    const list = byImported.get(key);
    if (list) list.push(e);
    else byImported.set(key, [e]);
  }
  return byImported.size;
}

async function lockBench() {
  const names = Array.from({ length: 20 }, (_, i) => `fm-bench-${i}`);
  const contents = Object.fromEntries(
    names.map((name, i) => [name, { '1.0.0': {}, '1.1.0': i < 19 ? { [names[i + 1]]: '^1.0.0' } : {} }]),
  );
  const npm = await startPackumentRegistry(contents);
  const locker = await startTestService(dependencyLockerDefinition, {
    env: { FLOWMESH_LOCKER_NPM_REGISTRY: npm.url, FLOWMESH_LOCKER_POLL_MS: '60000' },
  });
  const db = new pg.Client({ connectionString: locker.database.url });
  await db.connect();
  try {
    const units = locker.running.app.get(UnitLocker);
    const unit = {
      workspace: 'main',
      ownerKind: 'script',
      ownerPath: 'f/bench/twenty',
      language: 'bun',
      content: `${names.map((n, i) => `import p${i} from '${n}';`).join('\n')}\nexport function main() { return 1; }`,
    };
    let t = performance.now();
    const first = await units.lock(unit);
    const coldMs = performance.now() - t;
    const packages = Object.keys(JSON.parse(first.lock).lockfile.packages).length - 1;
    const sorted = Object.fromEntries(names.map((n) => [n, 'latest']).sort(([a], [b]) => a.localeCompare(b)));
    const key = createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
    const read = () =>
      db.query(
        'SELECT hash, requirements, lockfile, created_at FROM dependency_locker.lockfile WHERE requirements_key = $1',
        [key],
      );
    if ((await read()).rowCount !== 1) throw new Error('the warm lock is not where the floor reads it');
    const result = await interleavedAsync(read, () => units.lock(unit), SAMPLES);
    return { coldMs, packages, ...result };
  } finally {
    await db.end();
    await locker.stop();
    await npm.close();
  }
}

const edges = workspaceMap();
const root = { kind: 'script', path: 'f/lib/root' };
const dependents = planCascade(root, edges).length;
const plan = interleaved(
  () => groupByImported(edges),
  () => planCascade(root, edges),
  SAMPLES,
);
console.log(
  `machine: ${cpus().length} cores, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(`\ncascade planning: ${dependents} dependents among ${edges.length} edges (${SAMPLES} samples)`);
console.log(`  planCascade            p50 ${fmt(plan.subject.p50)}  p99 ${fmt(plan.subject.p99)}`);
console.log(`  floor: group the edges p50 ${fmt(plan.floor.p50)}  p99 ${fmt(plan.floor.p99)}`);
console.log(`  target p50 <= ${PLAN_TARGET_MS} ms: ${plan.subject.p50 <= PLAN_TARGET_MS ? 'met' : 'MISSED'}`);

const lock = await lockBench();
console.log(
  `\nlock of a script importing 20 npm packages (${lock.packages} in its tree), warm cache (${SAMPLES} samples)`,
);
console.log(`  first lock (npm resolves, local registry) ${fmt(lock.coldMs)}`);
console.log(`  UnitLocker.lock        p50 ${fmt(lock.subject.p50)}  p99 ${fmt(lock.subject.p99)}`);
console.log(`  floor: pk read of lock p50 ${fmt(lock.floor.p50)}  p99 ${fmt(lock.floor.p99)}`);
console.log(`  target p50 <= ${LOCK_TARGET_MS} ms: ${lock.subject.p50 <= LOCK_TARGET_MS ? 'met' : 'MISSED'}`);
console.log(
  `load after: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
process.exit(plan.subject.p50 <= PLAN_TARGET_MS && lock.subject.p50 <= LOCK_TARGET_MS ? 0 : 1);
