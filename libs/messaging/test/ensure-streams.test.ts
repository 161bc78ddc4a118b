import { STREAMS, type ConsumerDefinition } from '@flowmesh/contracts';
import { ensureConsumer, ensureStreams, type MeshConnection } from '@flowmesh/messaging';
import { TEST_STREAMS } from '@flowmesh/testing';
import { nanos } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MeshFixture } from './support/mesh-fixture.js';

describe('ensureStreams / ensureConsumer', () => {
  let mesh: MeshFixture;
  let conn: MeshConnection;

  beforeAll(async () => {
    mesh = new MeshFixture('ensure');
    conn = await mesh.connect('admin');
  });

  afterAll(async () => {
    await mesh?.dispose();
  });

  it('creates every stream once, then leaves them alone', async () => {
    const first = await ensureStreams(conn, TEST_STREAMS);
    expect(first.map((r) => r.action)).toEqual(Object.values(STREAMS).map(() => 'created'));
    const second = await ensureStreams(conn, TEST_STREAMS);
    expect(second.map((r) => r.action)).toEqual(Object.values(STREAMS).map(() => 'unchanged'));

    const work = await conn.jsm.streams.info(mesh.space.streamName(STREAMS.work.name));
    expect(work.config).toMatchObject({
      retention: 'workqueue',
      subjects: [`${mesh.prefix}.work.>`],
      duplicate_window: nanos(STREAMS.work.duplicateWindowMs),
    });
  });

  it('brings a stream that drifted back in line with the contract', async () => {
    const name = mesh.space.streamName(STREAMS.events.name);
    await conn.jsm.streams.update(name, { max_age: nanos(60 * 60_000) });
    const results = await ensureStreams(conn, TEST_STREAMS);
    expect(results.find((r) => r.name === name)).toEqual({ name, action: 'updated', changed: ['max_age'] });
    expect((await conn.jsm.streams.info(name)).config.max_age).toBe(nanos(STREAMS.events.maxAgeMs));
  });

  it('creates a durable consumer idempotently and updates a changed policy', async () => {
    const def: ConsumerDefinition = {
      stream: STREAMS.events.name,
      durable: 'audit',
      filterSubject: 'evt.job.completed',
      ackWaitMs: 10_000,
      maxDeliver: 4,
      backoffMs: [100],
      maxAckPending: 50,
    };
    expect((await ensureConsumer(conn, def)).action).toBe('created');
    expect((await ensureConsumer(conn, def)).action).toBe('unchanged');
    const updated = await ensureConsumer(conn, { ...def, ackWaitMs: 20_000 });
    expect(updated).toMatchObject({ action: 'updated', changed: ['ack_wait'] });

    const info = await conn.jsm.consumers.info(
      mesh.space.streamName(STREAMS.events.name),
      mesh.space.durableName('audit'),
    );
    expect(info.config).toMatchObject({
      ack_policy: 'explicit',
      filter_subject: `${mesh.prefix}.evt.job.completed`,
      ack_wait: nanos(20_000),
      // One extra delivery so a message whose last allowed delivery died still reaches the dead letters.
      max_deliver: 5,
    });
  });
});
