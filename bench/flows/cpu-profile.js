// Where the CPU of a step goes: runs ten-step flows with 100 in flight (as bench/flows/run.js
// does) and reads, from /proc, the CPU time each process of the machine spent meanwhile and, in
// the worker, each of its threads; divided by the steps run. See README.md.
// Run: npm run build && node_modules/.bin/node bench/flows/cpu-profile.js
import { readdirSync, readFileSync } from 'node:fs';
import { chainFlow, startFlowmesh } from './flowmesh-runner.js';
import { burst } from './stats.js';

// Script threads are not replaced during the run, so all their time is counted (an ended
// thread's time leaves /proc with it).
process.env.FLOWMESH_TS_JOBS_PER_THREAD ??= '1000000';

const FLOWS = Number(process.env.BENCH_FLOWS ?? 5000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 100);
const STEPS = Number(process.env.BENCH_STEPS ?? 10);
/** Untimed flows first, at the same concurrency: the rate climbs for the first ~3 000 (README.md). */
const WARMUP = Number(process.env.BENCH_WARMUP_FLOWS ?? 3000);

const pids = () => readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
const read = (path, encoding = 'utf8') => {
  try {
    return readFileSync(path, encoding);
  } catch {
    return undefined;
  }
};

/** Name and CPU ticks (user + system) of a /proc stat line. */
function parseStat(text) {
  const name = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { name, ticks: Number(fields[11]) + Number(fields[12]) };
}

/** `FLOWMESH_SUBJECT_PREFIX=` of the mesh this run started: its processes carry it. */
let meshMark = '';

/** A node process of this run's mesh named by its role, any other node process as such, anything else by its command. */
function processName(pid, name) {
  if (name !== 'node' && name !== 'MainThread') return name;
  if (Number(pid) === process.pid) return 'bench client';
  const env = read(`/proc/${pid}/environ`, 'latin1') ?? '';
  if (!env.includes(meshMark)) return 'node elsewhere';
  if (/FLOWMESH_ROLE=worker/.test(env)) return 'orchestrator worker';
  const command = read(`/proc/${pid}/cmdline`, 'latin1') ?? '';
  if (command.includes('resource-registry')) return 'registry';
  if (command.includes('flow-orchestrator')) return 'orchestrator service';
  return 'node elsewhere';
}

function processTicks() {
  const ticks = new Map();
  for (const pid of pids()) {
    const text = read(`/proc/${pid}/stat`);
    if (!text) continue;
    const { name, ticks: t } = parseStat(text);
    ticks.set(pid, { name: processName(pid, name), t });
  }
  return ticks;
}

/** Threads of the worker processes (a thread that ended meanwhile is not counted). */
function workerThreadTicks() {
  const ticks = new Map();
  for (const pid of pids()) {
    const env = read(`/proc/${pid}/environ`, 'latin1') ?? '';
    if (!env.includes(meshMark) || !/FLOWMESH_ROLE=worker/.test(env)) continue;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const text = read(`/proc/${pid}/task/${tid}/stat`);
      if (!text) continue;
      const { name, ticks: t } = parseStat(text);
      ticks.set(tid, { name: tid === pid ? 'main thread' : name, t });
    }
  }
  return ticks;
}

/** Ms of CPU per step by name, largest first. */
function perStep(before, after, steps) {
  const byName = new Map();
  for (const [id, { name, t }] of after) {
    const spent = t - (before.get(id)?.t ?? 0);
    if (spent > 0) byName.set(name, (byName.get(name) ?? 0) + spent);
  }
  return [...byName]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([name, ticks]) => `${name} ${((ticks * 10) / steps).toFixed(3)}`)
    .join(', ');
}

/**
 * Statement counts from pg_stat_statements when the server loads it (BENCH_PG_STATEMENTS=1;
 * `shared_preload_libraries = 'pg_stat_statements'` needs a server restart).
 */
async function pgStatements(databaseUrl) {
  if (process.env.BENCH_PG_STATEMENTS !== '1') return undefined;
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  return {
    reset: () => client.query('SELECT pg_stat_statements_reset()'),
    async perStep(steps) {
      const { rows } = await client.query(
        `SELECT calls, total_exec_time, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query
           FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
          ORDER BY calls DESC LIMIT 25`,
      );
      const total = await client.query(
        `SELECT sum(calls) AS calls, sum(total_exec_time) AS ms FROM pg_stat_statements
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      const tables = await client.query(
        `SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables
          WHERE n_tup_ins + n_tup_upd > 0 ORDER BY n_tup_ins + n_tup_upd DESC LIMIT 6`,
      );
      await client.end();
      console.log(
        `Rows per step (since the start): ${tables.rows
          .map(
            (t) =>
              `${t.relname} +${(t.n_tup_ins / steps).toFixed(2)} ~${(t.n_tup_upd / steps).toFixed(2)} (HOT ${(t.n_tup_hot_upd / steps).toFixed(2)})`,
          )
          .join(', ')}`,
      );
      const { calls, ms } = total.rows[0];
      return (
        `${(calls / steps).toFixed(3).padStart(7)} ${(ms / steps).toFixed(3)}ms  (all)\n` +
        rows
          .map(
            (r) =>
              `${(r.calls / steps).toFixed(3).padStart(7)} ${(r.total_exec_time / steps).toFixed(3)}ms  ${r.query}`,
          )
          .join('\n')
      );
    },
  };
}

const fm = await startFlowmesh();
meshMark = `FLOWMESH_SUBJECT_PREFIX=${fm.subjectPrefix}\0`;
try {
  const flow = chainFlow(STEPS);
  await burst((i) => fm.run(flow, { n: i }), { flows: WARMUP, inFlight: IN_FLIGHT });
  const statements = await pgStatements(fm.databaseUrl);
  await statements?.reset();
  const processesBefore = processTicks();
  const threadsBefore = workerThreadTicks();
  const { steady, overall } = await burst((i) => fm.run(flow, { n: i }), {
    flows: FLOWS,
    inFlight: IN_FLIGHT,
  });
  const steps = FLOWS * STEPS;
  console.log(
    `${steady.toFixed(1)} flows/s with ${IN_FLIGHT} in flight (${overall.toFixed(1)}/s with the ramp-up and drain; ${FLOWS} x ${STEPS} steps)`,
  );
  console.log(`CPU ms per step, by process: ${perStep(processesBefore, processTicks(), steps)}`);
  console.log(`CPU ms per step, worker threads: ${perStep(threadsBefore, workerThreadTicks(), steps)}`);
  if (statements) console.log(`Postgres statements per step:\n${await statements.perStep(steps)}`);
} finally {
  await fm.stop();
}
