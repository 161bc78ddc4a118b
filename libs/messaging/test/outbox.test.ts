import { randomInt } from 'node:crypto';
import { defineEvent, STREAMS } from '@flowmesh/contracts';
import { OutboxRelay, writeToOutbox, type MeshConnection } from '@flowmesh/messaging';
import { waitFor } from '@flowmesh/testing';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MeshFixture } from './support/mesh-fixture.js';
import { databaseUrl, OutboxDatabase } from './support/outbox-database.js';

const jobCompleted = defineEvent('evt.job.completed', z.object({ jobId: z.string(), n: z.number().int() }));

describe('outbox: messages commit with the state change and are published exactly once', () => {
  let mesh: MeshFixture;
  let db: OutboxDatabase;
  let dataSource: DataSource;
  let conn: MeshConnection;

  beforeAll(async () => {
    mesh = await MeshFixture.create('outbox');
    db = await OutboxDatabase.create();
    dataSource = await db.dataSource('app');
    conn = await mesh.connect('relay');
  });

  afterAll(async () => {
    await db?.dispose();
    await mesh?.dispose();
  });

  async function storedMsgIds(): Promise<string[]> {
    const stream = mesh.space.streamName(STREAMS.events.name);
    const info = await conn.jsm.streams.info(stream);
    const ids: string[] = [];
    for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
      const msg = await conn.jsm.streams.getMessage(stream, { seq });
      ids.push(msg?.header.get('Nats-Msg-Id') ?? '');
    }
    return ids;
  }

  async function clearStream(): Promise<void> {
    await conn.jsm.streams.purge(mesh.space.streamName(STREAMS.events.name));
    await dataSource.query(`DELETE FROM "${db.schema}".outbox_message`);
  }

  it('the migration creates exactly what the entity describes', async () => {
    const pending = await dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('a row written in a rolled-back transaction is never published', async () => {
    await clearStream();
    const failed = dataSource.transaction(async (manager) => {
      await manager.query(`CREATE TEMP TABLE job_state (id text) ON COMMIT DROP`);
      await writeToOutbox(
        manager,
        jobCompleted,
        { jobId: 'rolled-back', n: 1 },
        { msgId: 'job:rolled-back:completed' },
      );
      throw new Error('the state change failed');
    });
    await expect(failed).rejects.toThrow('the state change failed');
    await dataSource.transaction((manager) =>
      writeToOutbox(
        manager,
        jobCompleted,
        { jobId: 'committed', n: 2 },
        { msgId: 'job:committed:completed' },
      ),
    );

    const relay = new OutboxRelay(dataSource, conn);
    expect(await relay.publishBatch()).toBe(1);
    expect(await relay.publishBatch()).toBe(0);
    expect(await storedMsgIds()).toEqual(['job:committed:completed']);
    const rows: unknown[] = await dataSource.query(
      `SELECT msg_id, published_at FROM "${db.schema}".outbox_message`,
    );
    expect(rows).toEqual([{ msg_id: 'job:committed:completed', published_at: expect.any(Date) as Date }]);
  });

  it('a poll leaves rows younger than writerGraceMs to their writer; a wake-up, or an older row, is taken', async () => {
    await clearStream();
    const write = (jobId: string) =>
      dataSource.transaction((manager) =>
        writeToOutbox(manager, jobCompleted, { jobId, n: 1 }, { msgId: `job:${jobId}:completed` }),
      );
    await write('old');
    await dataSource.query(
      `UPDATE "${db.schema}".outbox_message SET created_at = now() - interval '10 seconds' WHERE msg_id = 'job:old:completed'`,
    );
    await write('young');
    const relay = new OutboxRelay(dataSource, conn, { writerGraceMs: 5_000 });
    expect(await relay.publishBatch(false)).toBe(1);
    expect(await storedMsgIds()).toEqual(['job:old:completed']);
    expect(await relay.publishBatch(false)).toBe(0);
    expect(await relay.publishBatch(true)).toBe(1);
    expect(await storedMsgIds()).toEqual(['job:old:completed', 'job:young:completed']);
  });

  it('a second write with the same msgId is ignored', async () => {
    await clearStream();
    const write = () =>
      dataSource.transaction((manager) =>
        writeToOutbox(manager, jobCompleted, { jobId: 'twice', n: 1 }, { msgId: 'job:twice:completed' }),
      );
    expect(await write()).toEqual({ written: true });
    expect(await write()).toEqual({ written: false });
  });

  it('an invalid payload is refused before it reaches the table', async () => {
    await expect(
      dataSource.transaction((manager) =>
        writeToOutbox(manager, jobCompleted, { jobId: 'bad', n: 'one' as never }, { msgId: 'job:bad' }),
      ),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: { issues: [{ path: 'n' }] } });
  });

  it('a relay killed mid-batch publishes nothing twice', async () => {
    await clearStream();
    await dataSource.transaction(async (manager) => {
      for (let n = 0; n < 50; n++) {
        await writeToOutbox(manager, jobCompleted, { jobId: `job-${n}`, n }, { msgId: `job:${n}:completed` });
      }
    });

    // Freeze relay A between publishing its batch and marking it: a trigger on the UPDATE waits
    // for an advisory lock this test holds. That is the worst moment for it to die.
    const lockKey = randomInt(1, 2 ** 31);
    const holder = new pg.Client({ connectionString: databaseUrl() });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock($1)', [lockKey]);
    await dataSource.query(`
      CREATE FUNCTION "${db.schema}".hold_mark() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock(${lockKey}); RETURN NEW; END $$`);
    await dataSource.query(
      `CREATE TRIGGER hold_mark BEFORE UPDATE ON "${db.schema}".outbox_message FOR EACH ROW EXECUTE FUNCTION "${db.schema}".hold_mark()`,
    );

    const relayASource = await db.dataSource('relay-a');
    const relayAConn = await mesh.connect('relay-a');
    const relayA = new OutboxRelay(relayASource, relayAConn, { batchSize: 20 });
    const batchA = relayA.publishBatch();
    batchA.catch(() => undefined);

    await waitFor(async () => (await storedMsgIds()).length === 20, {
      description: 'relay A to publish its batch',
    });
    const [blocked] = await waitFor(
      () =>
        db
          .sql<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
            [`${db.schema}-relay-a`],
          )
          .then((rows) => (rows.length > 0 ? rows : undefined)),
      { description: 'relay A to block while marking its batch' },
    );

    // Kill relay A: its NATS connection and its database session die with the batch unmarked.
    await relayAConn.nc.close();
    await db.sql('SELECT pg_terminate_backend($1)', [blocked?.pid]);
    await expect(batchA).rejects.toThrow();

    await dataSource.query(`DROP TRIGGER hold_mark ON "${db.schema}".outbox_message`);
    await holder.query('SELECT pg_advisory_unlock($1)', [lockKey]);
    await holder.end();

    const relayB = new OutboxRelay(dataSource, conn, { batchSize: 20 });
    let published = 0;
    for (let batch = await relayB.publishBatch(); batch > 0; batch = await relayB.publishBatch())
      published += batch;
    expect(published).toBe(50);

    const ids = await storedMsgIds();
    expect(ids).toHaveLength(50);
    expect(new Set(ids).size).toBe(50);
    expect(ids.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, n) => `job:${n}:completed`));
    const [{ unpublished }]: Array<{ unpublished: number }> = await dataSource.query(
      `SELECT count(*)::int AS unpublished FROM "${db.schema}".outbox_message WHERE published_at IS NULL`,
    );
    expect(unpublished).toBe(0);
  });

  it('a started relay publishes on its own and wakes on demand', async () => {
    await clearStream();
    const relay = new OutboxRelay(dataSource, conn, { pollIntervalMs: 60_000 });
    relay.start();
    try {
      await dataSource.transaction((manager) =>
        writeToOutbox(manager, jobCompleted, { jobId: 'woken', n: 1 }, { msgId: 'job:woken:completed' }),
      );
      relay.wake();
      await waitFor(async () => (await storedMsgIds()).includes('job:woken:completed'), {
        description: 'the woken relay to publish',
      });
    } finally {
      await relay.stop();
    }
  });
});
