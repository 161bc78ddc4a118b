// The schedule part: `count` schedules due every second (`* * * * * *`, croner's seconds field),
// each running a trivial saved script; after they all exist and a settle time, a window of
// `seconds` whole seconds is measured from the job rows: one run per schedule and tick (missed:
// none; doubled: two or more), and each run's lateness against its tick (`scheduled_for`). A bare
// timer in this process, due on the same whole seconds, is the floor the machine allows.
import { SERVICE_SCHEMAS } from '@flowmesh/contracts';
import pg from 'pg';
import { summarize } from '../flows/stats.js';
import { cpuBetween, cpuSnapshot } from './cpu.js';

const SCRIPT = { path: 'u/admin/tick', content: 'export function main() { return 1; }' };

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `task(i)` for i < n with at most `width` at once. */
async function pool(n, width, task) {
  let next = 0;
  const lane = async () => {
    while (next < n) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(width, n) }, lane));
}

/**
 * A timer due on every whole second from `from` to `to` (ms since the epoch): how late each
 * callback ran, in ms. The floor: lateness no scheduler in a Node process of this machine beats.
 */
function bareTimer(from, to) {
  const late = [];
  return new Promise((resolve) => {
    const arm = (due) => {
      if (due >= to) return resolve(late);
      setTimeout(
        () => {
          late.push(performance.timeOrigin + performance.now() - due);
          arm(due + 1000);
        },
        Math.max(0, due - Date.now()),
      );
    };
    arm(from);
  });
}

/** Creates the script and the schedules (over HTTP, Windmill's `schedules/create`). */
export async function createSchedules(fm, count, cron) {
  await fm.items.createScript({
    ...fm.inMain,
    path: SCRIPT.path,
    summary: 'bench tick',
    language: 'bun',
    content: SCRIPT.content,
  });
  const started = performance.now();
  await pool(count, 8, async (i) => {
    const answer = await fm.http('POST', 'schedules/create', {
      path: `u/admin/tick_${String(i).padStart(4, '0')}`,
      script_path: SCRIPT.path,
      is_flow: false,
      schedule: cron,
      timezone: 'UTC',
      args: {},
      enabled: true,
    });
    if (answer.status < 200 || answer.status > 299)
      throw new Error(`schedules/create answered ${answer.status}: ${answer.text.slice(0, 500)}`);
  });
  return (performance.now() - started) / 1000;
}

/**
 * The whole schedule part. Lateness is read from the job rows (`job.scheduled_for` is the tick
 * the run belongs to): `created_at` (the run's job made: the fire) and `started_at` (a worker began
 * it) against the tick. A tick counts as missed when no job of the schedule has it as its
 * `scheduled_for`, doubled when more than one does.
 */
export async function schedulePart(fm, { count, seconds, settleSeconds, graceSeconds }) {
  const cron = '* * * * * *';
  const createSeconds = await createSchedules(fm, count, cron);
  const from = Math.ceil((Date.now() + settleSeconds * 1000) / 1000) * 1000;
  const to = from + seconds * 1000;
  const timer = bareTimer(from, to);
  // CPU per process over the window (from half a second before it: /proc is read off its ticks).
  const mesh = new Map(
    ['flow-orchestrator', 'flow-orchestrator-worker', 'resource-registry'].map((name) => [
      String(fm.pidOf(name)),
      name,
    ]),
  );
  await sleep(Math.max(0, from - 500 - Date.now()));
  const cpuBefore = cpuSnapshot(mesh);
  const floor = await timer;
  await sleep(Math.max(0, to - Date.now()));
  const cpu = cpuBetween(cpuBefore, cpuSnapshot(mesh));
  await sleep(Math.max(0, to + graceSeconds * 1000 - Date.now()));

  const db = new pg.Client({ connectionString: fm.databaseUrl });
  await db.connect();
  let rows;
  let claimed;
  let woken;
  const schema = SERVICE_SCHEMAS['flow-orchestrator'];
  try {
    // The ticker's record of each tick it fired (`schedule_run`, written in the transaction that
    // claimed the schedule; `created_at` is that transaction's start), when the schema has it.
    claimed = await db
      .query(
        `SELECT (extract(epoch FROM created_at - scheduled_for) * 1000)::float8 AS late
           FROM ${schema}.schedule_run
          WHERE scheduled_for >= to_timestamp($1::float8 / 1000) AND scheduled_for < to_timestamp($2::float8 / 1000)`,
        [from, to],
      )
      .then(
        (answer) => answer.rows.map((row) => row.late),
        () => [],
      );
    // When the clock of parked jobs made each run due and queued its work message (the outbox
    // row `timer:<job id>:...`, `created_at` its transaction's start): the fire, as a worker sees it.
    woken = await db
      .query(
        `SELECT split_part(msg_id, ':', 2) AS job_id, (extract(epoch FROM min(created_at)) * 1000)::float8 AS at,
                (extract(epoch FROM min(published_at)) * 1000)::float8 AS published
           FROM ${schema}.outbox_message WHERE msg_id LIKE 'timer:%' GROUP BY 1`,
      )
      .then(
        (answer) => new Map(answer.rows.map((row) => [row.job_id, row])),
        () => new Map(),
      );
    ({ rows } = await db.query(
      `SELECT id::text AS id, trigger_path AS path,
              (extract(epoch FROM scheduled_for) * 1000)::float8 AS tick,
              (extract(epoch FROM created_at - scheduled_for) * 1000)::float8 AS created_late,
              (extract(epoch FROM started_at - scheduled_for) * 1000)::float8 AS started_late,
              (extract(epoch FROM completed_at - scheduled_for) * 1000)::float8 AS completed_late
         FROM ${schema}.job
        WHERE trigger_kind = 'schedule' AND parent_job IS NULL
          AND scheduled_for >= to_timestamp($1::float8 / 1000) AND scheduled_for < to_timestamp($2::float8 / 1000)`,
      [from, to],
    ));
  } finally {
    await db.end();
  }
  const perTick = new Map();
  for (const row of rows) {
    const key = `${row.path} ${Math.round(row.tick)}`;
    perTick.set(key, (perTick.get(key) ?? 0) + 1);
  }
  const expected = count * seconds;
  let doubled = 0;
  for (const runs of perTick.values()) if (runs > 1) doubled += runs - 1;
  const offTick = rows.filter((row) => Math.abs(row.tick % 1000) > 0.5).length;
  const created = rows.map((row) => row.created_late);
  const wokenRows = rows.filter((row) => woken.has(row.id));
  const wokenLate = wokenRows.map((row) => woken.get(row.id).at - row.tick);
  const publishedLate = wokenRows
    .filter((row) => woken.get(row.id).published !== null)
    .map((row) => woken.get(row.id).published - row.tick);
  const started = rows.filter((row) => row.started_late !== null).map((row) => row.started_late);
  const completed = rows.filter((row) => row.completed_late !== null).map((row) => row.completed_late);
  // Lateness per second of the window: does it hold, or grow as runs queue up?
  const bySecond = [];
  for (let t = from; t < to; t += 1000) {
    const ofTick = rows.filter((row) => Math.round(row.tick) === t && row.started_late !== null);
    bySecond.push(summarize(ofTick.map((row) => row.started_late)).p99);
  }
  return {
    count,
    seconds,
    createSeconds,
    expected,
    runs: rows.length,
    ticksWithRun: perTick.size,
    missed: expected - perTick.size,
    doubled,
    offTick,
    notStarted: rows.length - started.length,
    claimed: summarize(claimed),
    created: summarize(created),
    woken: summarize(wokenLate),
    published: summarize(publishedLate),
    started: summarize(started),
    completed: summarize(completed),
    startedP99BySecond: bySecond,
    floor: summarize(floor),
    cpu,
  };
}
