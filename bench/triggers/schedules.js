// The schedule part: `count` schedules due every second (`* * * * * *`, croner's seconds field),
// each running a trivial saved script; after they all exist and a settle time, a window of
// `seconds` whole seconds is measured from the job rows: one run per schedule and tick (missed:
// none; doubled: two or more), and each run's lateness against its tick (`scheduled_for`). A bare
// timer in this process, due on the same whole seconds, is the floor the machine allows.
import { SERVICE_SCHEMAS } from '@flowmesh/contracts';
import pg from 'pg';
import { isoMs } from '../flows/flowmesh-runner.js';
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

/** Saves the script the schedules run. */
export function createScript(fm) {
  return fm.items.createScript({
    ...fm.inMain,
    path: SCRIPT.path,
    summary: 'bench tick',
    language: 'bun',
    content: SCRIPT.content,
  });
}

/**
 * The same script run `n` times by path, one after the other, before any schedule exists: the
 * time from its job made (and queued at once) to a worker starting it, the part of a scheduled
 * run's lateness a run that did not wait for a tick pays as well.
 */
async function directRuns(fm, n) {
  await fm.watchEnds();
  const ids = [];
  try {
    for (let i = 0; i < n; i++) {
      const answer = await fm.http('POST', `jobs/run/p/${SCRIPT.path}`, {});
      if (answer.status !== 201)
        throw new Error(`run/p/${SCRIPT.path} answered ${answer.status}: ${answer.text}`);
      const id = answer.text.replace(/^"|"$/g, '');
      await fm.ended(id);
      ids.push(id);
    }
  } finally {
    fm.unwatchEnds();
  }
  const gaps = [];
  for (const id of ids.slice(Math.min(5, Math.floor(n / 2)))) {
    const job = await fm.jobs.get({ ...fm.inMain, id });
    gaps.push(isoMs(job.started_at) - isoMs(job.created_at));
  }
  return summarize(gaps);
}

/**
 * The mesh's capacity for this script, whatever starts it: `n` runs by path over HTTP, `width` in
 * flight, before any schedule exists; runs ended a second. The floor for the schedule target:
 * ticks that ask for more runs a second than this cannot all run on time, ticker or not.
 */
async function capacity(fm, n, width) {
  await fm.watchEnds();
  const started = performance.now();
  try {
    await pool(n, width, async () => {
      const answer = await fm.http('POST', `jobs/run/p/${SCRIPT.path}`, {});
      if (answer.status !== 201)
        throw new Error(`run/p/${SCRIPT.path} answered ${answer.status}: ${answer.text}`);
      await fm.ended(answer.text.replace(/^"|"$/g, ''));
    });
  } finally {
    fm.unwatchEnds();
  }
  const seconds = (performance.now() - started) / 1000;
  return { runs: n, seconds, perSecond: n / seconds };
}

/** Creates the schedules (over HTTP, Windmill's `schedules/create`); the script exists. */
export async function createSchedules(fm, count, cron) {
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
 * The whole schedule part, read from the rows once the window is over (`job.scheduled_for` is the
 * tick a run belongs to). A tick is missed when no job of the schedule has it as its
 * `scheduled_for`, doubled when more than one does. Its run is **fired** when its work message is
 * queued for the workers: the ticker starts runs up to 1 s before their tick, parked until it,
 * and the clock of parked jobs makes them due at the tick (outbox row `timer:<job id>:...`); a
 * run made after its tick is queued as it is made (`run:<job id>`). The outbox row's
 * `created_at` is its transaction's start, `published_at` the relay's mark (up to ~20 ms after it
 * published): the target is held against the later, `published_at`. `started_at`, a worker
 * beginning the run, follows: a thousand runs due on one instant queue for the workers.
 */
export async function schedulePart(fm, { count, seconds, settleSeconds, graceSeconds }) {
  const cron = '* * * * * *';
  await createScript(fm);
  const direct = await directRuns(fm, 25);
  const runCapacity = await capacity(fm, Math.max(200, Math.min(2 * count, 2_000)), 100);
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

  const schema = SERVICE_SCHEMAS['flow-orchestrator'];
  const window = [from, to];
  const inWindow = `scheduled_for >= to_timestamp($1::float8 / 1000) AND scheduled_for < to_timestamp($2::float8 / 1000)`;
  const db = new pg.Client({ connectionString: fm.databaseUrl });
  await db.connect();
  // The ticker's record of each tick it fired (`schedule_run`, written in the transaction that
  // claimed the schedule; `created_at` is that transaction's start). The ticker prunes ended runs
  // about once a minute, so it is read at the window's end and again after the grace time.
  const claims = new Map();
  const readClaims = () =>
    db
      .query(
        `SELECT job_id::text AS id, (extract(epoch FROM created_at) * 1000)::float8 AS at
           FROM ${schema}.schedule_run WHERE ${inWindow}`,
        window,
      )
      .then(
        (answer) => {
          for (const row of answer.rows) if (!claims.has(row.id)) claims.set(row.id, row.at);
        },
        () => undefined,
      );
  let rows;
  try {
    await readClaims();
    await sleep(Math.max(0, to + graceSeconds * 1000 - Date.now()));
    await readClaims();
    ({ rows } = await db.query(
      `WITH runs AS (
         SELECT id, trigger_path, scheduled_for, created_at, started_at, completed_at
           FROM ${schema}.job
          WHERE trigger_kind = 'schedule' AND parent_job IS NULL AND ${inWindow}),
       queued AS (
         SELECT split_part(msg_id, ':', 2) AS job_id, min(created_at) AS made, min(published_at) AS published
           FROM ${schema}.outbox_message
          WHERE (msg_id LIKE 'timer:%' OR msg_id LIKE 'run:%')
            AND created_at >= to_timestamp($1::float8 / 1000) - interval '5 seconds'
          GROUP BY 1)
       SELECT r.id::text AS id, r.trigger_path AS path,
              (extract(epoch FROM r.scheduled_for) * 1000)::float8 AS tick,
              (extract(epoch FROM r.created_at) * 1000)::float8 AS created_at,
              (extract(epoch FROM r.created_at - r.scheduled_for) * 1000)::float8 AS created_late,
              (extract(epoch FROM q.made - r.scheduled_for) * 1000)::float8 AS queued_late,
              (extract(epoch FROM q.published - r.scheduled_for) * 1000)::float8 AS published_late,
              (extract(epoch FROM r.started_at - r.scheduled_for) * 1000)::float8 AS started_late,
              (extract(epoch FROM r.completed_at - r.scheduled_for) * 1000)::float8 AS completed_late
         FROM runs r LEFT JOIN queued q ON q.job_id = r.id::text`,
      window,
    ));
  } finally {
    await db.end();
  }
  // Claims: lateness of each claim against its tick, and the claim transactions (the rows sharing
  // one start): how many ticks each took and how long after its start the last of their jobs was made.
  const claimed = [];
  const byClaim = new Map();
  for (const row of rows) {
    const at = claims.get(row.id);
    if (at === undefined) continue;
    claimed.push(at - row.tick);
    const claim = byClaim.get(at) ?? { ticks: 0, lastMade: -Infinity };
    claim.ticks += 1;
    claim.lastMade = Math.max(claim.lastMade, row.created_at);
    byClaim.set(at, claim);
  }
  const batches = [...byClaim].map(([at, { ticks, lastMade }]) => ({ ticks, took: lastMade - at }));
  const perTick = new Map();
  for (const row of rows) {
    const key = `${row.path} ${Math.round(row.tick)}`;
    perTick.set(key, (perTick.get(key) ?? 0) + 1);
  }
  const expected = count * seconds;
  let doubled = 0;
  for (const runs of perTick.values()) if (runs > 1) doubled += runs - 1;
  const offTick = rows.filter((row) => Math.abs(row.tick % 1000) > 0.5).length;
  const values = (field) => rows.filter((row) => row[field] !== null).map((row) => row[field]);
  // Lateness per second of the window: does it hold, or grow as runs queue up?
  const perSecond = (field) => {
    const p99s = [];
    for (let t = from; t < to; t += 1000)
      p99s.push(
        summarize(
          rows.filter((row) => Math.round(row.tick) === t && row[field] !== null).map((row) => row[field]),
        ).p99,
      );
    return p99s;
  };
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
    notQueued: rows.length - values('published_late').length,
    notStarted: rows.length - values('started_late').length,
    claimed: summarize(claimed),
    batches: {
      n: batches.length,
      ticks: summarize(batches.map((b) => b.ticks)),
      took: summarize(batches.map((b) => b.took)),
      perTick: summarize(batches.filter((b) => b.ticks > 1).map((b) => b.took / b.ticks)),
    },
    created: summarize(values('created_late')),
    queued: summarize(values('queued_late')),
    published: summarize(values('published_late')),
    started: summarize(values('started_late')),
    completed: summarize(values('completed_late')),
    publishedP99BySecond: perSecond('published_late'),
    startedP99BySecond: perSecond('started_late'),
    floor: summarize(floor),
    direct,
    capacity: runCapacity,
    cpu,
  };
}
