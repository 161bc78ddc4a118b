// Event triggers (issue 36): runs per second started by a JetStream trigger with BENCH_IN_FLIGHT
// (100) messages whose runs have not ended, and the delay from a message's publish to its run's
// step running (p50/p99), beside the floor of the same script run by path over NATS with as many
// in flight. The message carries its publish time; the step answers the delay it sees. Then a
// PostgreSQL trigger: BENCH_ROWS (200) rows inserted one by one, each carrying its insert time,
// and the delay from the insert's commit to its run's step (on a server with wal_level=logical:
// this machine's, or one started from its binaries as the suite does; skipped, saying why, else).
// Run: npm run build && node_modules/.bin/node bench/triggers/events.js
import { cpus, loadavg } from 'node:os';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { SERVICE_SCHEMAS } from '@flowmesh/contracts';
import pg from 'pg';
import { ms, rate, summarize } from '../flows/stats.js';
import { startLogicalPostgres } from '../../services/flow-orchestrator/test/support/logical-postgres.ts';
import { startTriggersMesh, WORKSPACE } from './mesh.js';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 2000);
/** The orchestrator's schema, where its job rows are. */
const JOBS = `${SERVICE_SCHEMAS['flow-orchestrator']}.job`;
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 100);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);
const ROWS = Number(process.env.BENCH_ROWS ?? 200);
const SCRIPT = {
  path: 'u/admin/event_bench',
  // The payload is the message's bytes in base64 (Windmill's args for a trigger's run).
  content: `export function main(payload: string) {
  const sent = Number(atob(payload));
  return { delay: Date.now() - sent };
}`,
};

const loads = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const line = (label, value) => console.log(`${label.padEnd(52)} ${value}`);

console.log(`bench/triggers/events: ${cpus().length} cores, load average ${loads()}`);
const fm = await startTriggersMesh();
const nc = await connect({ servers: process.env.NATS_URL });
const db = new pg.Client({ connectionString: fm.databaseUrl });
await db.connect();
const stream = `BENCH_EVENTS_${Date.now()}`;
const subject = `bench.events.${Date.now()}`;
try {
  await fm.items.createResourceType({ ...fm.inMain, name: 'nats', schema: {} });
  await fm.items.createResource({
    ...fm.inMain,
    path: 'u/admin/bench_nats',
    resource_type: 'nats',
    value: { servers: [new URL(process.env.NATS_URL).host], auth: { label: 'NO_AUTH' } },
  });
  await fm.items.createScript({
    ...fm.inMain,
    path: SCRIPT.path,
    summary: 'event bench',
    language: 'bun',
    content: SCRIPT.content,
  });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: stream, subjects: [subject] });
  const created = await fm.http('POST', 'nats_triggers/create', {
    path: 'u/admin/bench_stream',
    script_path: SCRIPT.path,
    is_flow: false,
    nats_resource_path: 'u/admin/bench_nats',
    use_jetstream: true,
    stream_name: stream,
    consumer_name: 'bench_events',
    subjects: [subject],
  });
  if (created.status !== 201 && created.status !== 200)
    throw new Error(`nats_triggers/create: ${created.status} ${created.text}`);
  for (let waited = 0; ; waited += 200) {
    const got = await fm.http('GET', 'nats_triggers/get/u/admin/bench_stream');
    if (JSON.parse(got.text).state === 'listening') break;
    if (waited > 60_000) throw new Error(`trigger not listening: ${got.text}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  const ended = async () =>
    Number(
      (
        await db.query(
          `SELECT count(*) AS n FROM ${JOBS} WHERE trigger_path = 'u/admin/bench_stream' AND completed_at IS NOT NULL`,
        )
      ).rows[0].n,
    );
  const js = jetstream(nc);
  /** Publishes `count` messages, never more than IN_FLIGHT ahead of the runs that ended. */
  async function publish(count, before) {
    let sent = 0;
    while (sent < count) {
      const done = (await ended()) - before;
      const room = Math.min(count - sent, IN_FLIGHT - (sent - done));
      for (let i = 0; i < room; i++, sent++) await js.publish(subject, String(Date.now()));
      if (room <= 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    while ((await ended()) - before < count) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  await publish(WARMUP, 0);
  const started = performance.now();
  await publish(MESSAGES, WARMUP);
  const seconds = (performance.now() - started) / 1000;
  const { rows } = await db.query(
    `SELECT (result->>'delay')::float AS delay FROM ${JOBS}
     WHERE trigger_path = 'u/admin/bench_stream' AND status = 'completed'
     ORDER BY created_at OFFSET $1`,
    [WARMUP],
  );
  const delays = summarize(rows.map((row) => row.delay));

  // The floor: the same script by path over NATS, as many in flight, no broker in between.
  const floorStarted = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < MESSAGES) {
        next++;
        const { job_id } = await fm.jobs.runScript({
          ...fm.inMain,
          path: SCRIPT.path,
          args: { payload: btoa(String(Date.now())) },
        });
        for (;;) {
          const result = await fm.jobs.waitResult({ ...fm.inMain, id: job_id, timeout_ms: 20_000 });
          if (result.completed) break;
        }
      }
    }),
  );
  const floorSeconds = (performance.now() - floorStarted) / 1000;

  console.log('');
  line(`JetStream trigger, ${MESSAGES} messages, ${IN_FLIGHT} in flight`, rate(MESSAGES / seconds));
  line('  publish -> step running', `p50 ${ms(delays.p50)}  p99 ${ms(delays.p99)}  (n=${delays.n})`);
  line(`floor: the script by path over NATS, ${IN_FLIGHT} in flight`, rate(MESSAGES / floorSeconds));
  line('trigger / floor', `${(MESSAGES / seconds / (MESSAGES / floorSeconds)).toFixed(2)}x`);
  await postgresPart();
  console.log(`workspace ${WORKSPACE}; load average after ${loads()}`);
} finally {
  await jetstreamManager(nc)
    .then((jsm) => jsm.streams.delete(stream))
    .catch(() => undefined);
  await nc.drain().catch(() => undefined);
  await db.end().catch(() => undefined);
  await fm.stop();
}

/** A row inserted -> its run's step, through a PostgreSQL trigger (logical replication). */
async function postgresPart() {
  const server = await startLogicalPostgres();
  if (typeof server === 'string') {
    line('PostgreSQL change -> step running', `skipped: ${server}`);
    return;
  }
  const table = `bench_rows_${Date.now()}`;
  const rows = new pg.Client({
    host: server.host,
    port: server.port,
    user: server.user,
    database: server.dbname,
  });
  await rows.connect();
  try {
    await rows.query(`CREATE TABLE ${table} (id int PRIMARY KEY, sent double precision NOT NULL)`);
    await fm.items.createResource({
      ...fm.inMain,
      path: 'u/admin/bench_db',
      resource_type: 'postgresql',
      value: {
        host: server.host,
        port: server.port,
        user: server.user,
        password: '',
        dbname: server.dbname,
        sslmode: 'disable',
      },
    });
    await fm.items.createScript({
      ...fm.inMain,
      path: 'u/admin/row_bench',
      summary: 'row bench',
      language: 'bun',
      content: 'export function main(row: { sent: number }) { return { delay: Date.now() - row.sent }; }',
    });
    const created = await fm.http('POST', 'postgres_triggers/create', {
      path: 'u/admin/bench_rows',
      script_path: 'u/admin/row_bench',
      is_flow: false,
      postgres_resource_path: 'u/admin/bench_db',
      replication_slot_name: `${table}_slot`,
      publication_name: `${table}_pub`,
      publication: {
        table_to_track: [{ schema_name: 'public', table_to_track: [{ table_name: table }] }],
        transaction_to_track: ['Insert'],
      },
    });
    if (created.status !== 201)
      throw new Error(`postgres_triggers/create: ${created.status} ${created.text}`);
    for (let waited = 0; ; waited += 200) {
      const got = JSON.parse((await fm.http('GET', 'postgres_triggers/get/u/admin/bench_rows')).text);
      if (got.state === 'listening') break;
      if (waited > 60_000) throw new Error(`postgres trigger not listening: ${JSON.stringify(got)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (let id = 0; id < ROWS; id++) {
      await rows.query(`INSERT INTO ${table} VALUES ($1, $2)`, [id, Date.now()]);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const count = async () =>
      Number(
        (
          await db.query(
            `SELECT count(*) AS n FROM ${JOBS} WHERE trigger_path = 'u/admin/bench_rows' AND status = 'completed'`,
          )
        ).rows[0].n,
      );
    for (let waited = 0; (await count()) < ROWS; waited += 100) {
      if (waited > 120_000) throw new Error(`only ${await count()} of ${ROWS} rows ran`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const { rows: done } = await db.query(
      `SELECT (result->>'delay')::float AS delay FROM ${JOBS} WHERE trigger_path = 'u/admin/bench_rows' AND status = 'completed'`,
    );
    const delays = summarize(done.map((row) => row.delay));
    line(`PostgreSQL trigger, ${ROWS} rows one by one (10 ms apart)`, '');
    line(
      '  insert committed -> step running',
      `p50 ${ms(delays.p50)}  p99 ${ms(delays.p99)}  (n=${delays.n})`,
    );
  } finally {
    await fm.http('DELETE', 'postgres_triggers/delete/u/admin/bench_rows').catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await rows.query('SELECT pg_drop_replication_slot($1)', [`${table}_slot`]).catch(() => undefined);
    await rows.query(`DROP PUBLICATION IF EXISTS ${table}_pub`).catch(() => undefined);
    await rows.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    await rows.end().catch(() => undefined);
    await server.stop();
  }
}
