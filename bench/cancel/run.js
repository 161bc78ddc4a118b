// Cancel benchmark: how long cancelling a run with a tree of ~10 000 jobs takes (issue 21: a
// subflow cycle's 18 000 jobs could not be cancelled at all), beside a floor measured in the same
// run: one UPDATE of as many rows of a copy of the job table. See README.md.
// Run: npm run build && node_modules/.bin/node bench/cancel/run.js
import { loadavg, cpus } from 'node:os';
import pg from 'pg';
import { startFlowmesh } from '../flows/flowmesh-runner.js';
import { ms } from '../flows/stats.js';

/** Iterations of the run's loop: each is a flow job with one step job queued for it. */
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 5_000);
const TARGET_MS = 1_000;
const WORKSPACE = 'main';

/**
 * A loop of ITERATIONS iterations at once, each a step queued for a tag no worker serves: every
 * job of the tree exists and waits, none runs (a running step is stopped by its worker; what
 * this measures is the tree).
 */
function wideFlow(iterations) {
  return {
    summary: `${iterations} queued iterations`,
    value: {
      modules: [
        {
          id: 'loop',
          value: {
            type: 'forloopflow',
            iterator: { type: 'javascript', expr: `Array.from({ length: ${iterations} }, (_, i) => i)` },
            parallel: true,
            parallelism: iterations,
            skip_failures: false,
            modules: [
              {
                id: 'wait',
                value: {
                  type: 'rawscript',
                  language: 'bun',
                  tag: 'bench-cancel-no-worker',
                  content: 'export function main() { return 1; }',
                  input_transforms: {},
                },
              },
            ],
          },
        },
      ],
    },
  };
}

async function until(probe, what, timeoutMs = 600_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const flowmesh = await startFlowmesh();
const db = new pg.Client({ connectionString: flowmesh.databaseUrl });
await db.connect();
try {
  console.log(
    `bench/cancel: ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const { createOrchestratorJobsClient } = await import('@flowmesh/contracts');
  const jobs = createOrchestratorJobsClient(flowmesh.client);
  const scope = { actor: flowmesh.actor, workspace: WORKSPACE };
  const { job_id: root } = await jobs.runFlow({ ...scope, value: wideFlow(ITERATIONS), args: {} });
  const expected = 1 + 2 * ITERATIONS;
  const treeSize = async () =>
    (await db.query('SELECT count(*)::int AS n FROM orchestrator.job WHERE root_job = $1', [root])).rows[0].n;
  const queuedAt = performance.now();
  const size = await until(async () => {
    const n = await treeSize();
    return n >= expected ? n : undefined;
  }, `${expected} jobs`);
  // Parked: no job of the tree held by a driver (the loop has queued every iteration's step).
  await until(
    async () =>
      (
        await db.query(
          'SELECT count(*)::int AS n FROM orchestrator.job WHERE root_job = $1 AND lease_owner IS NOT NULL',
          [root],
        )
      ).rows[0].n === 0,
    'the tree to park',
  );
  console.log(`tree of ${size} jobs queued and parked in ${ms(performance.now() - queuedAt)}`);

  const began = performance.now();
  const { cancelled } = await jobs.cancel({ ...scope, id: root, reason: 'bench' });
  const answered = performance.now() - began;
  const open = async () =>
    (
      await db.query(
        `SELECT count(*)::int AS n FROM orchestrator.job
          WHERE root_job = $1 AND status NOT IN ('completed', 'failed', 'cancelled')`,
        [root],
      )
    ).rows[0].n;
  const openAtAnswer = await open();
  await until(async () => (await open()) === 0, 'every job of the tree to end', 120_000);
  const allEnded = performance.now() - began;

  // Floor: one statement ending as many rows, on a copy of the same rows (same width, no trigger).
  await db.query('CREATE TEMP TABLE floor_job AS SELECT * FROM orchestrator.job WHERE root_job = $1', [root]);
  await db.query(`UPDATE floor_job SET status = 'running', completed_at = NULL`);
  await db.query('ANALYZE floor_job');
  const floorBegan = performance.now();
  await db.query(
    `UPDATE floor_job SET status = 'cancelled', completed_at = now(), result = '{"canceled": true}'::jsonb`,
  );
  const floor = performance.now() - floorBegan;

  console.log(
    `cancel of a run of ${size} jobs: answered ${ms(answered)} (${openAtAnswer} job(s) still open then), every job ended ${ms(allEnded)} (cancelled: ${cancelled})`,
  );
  console.log(`floor: one UPDATE of ${size} copied rows ${ms(floor)}`);
  console.log(
    `load average after ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  if (allEnded > TARGET_MS) {
    console.log(`target missed: ${ms(allEnded)} > ${TARGET_MS} ms for ${size} jobs`);
    process.exitCode = 1;
  }
} finally {
  await db.end();
  await flowmesh.stop();
}
