import { defineEvent, defineWork, STREAMS } from '@flowmesh/contracts';
import { HandleEvent, MeshClient, MeshContext } from '@flowmesh/messaging';
import { waitFor } from '@flowmesh/testing';
import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MeshFixture } from './support/mesh-fixture.js';

const resourceChanged = defineEvent(
  'evt.resource.changed',
  z.object({ path: z.string(), version: z.number().int() }),
);
type ResourceChanged = z.output<typeof resourceChanged.payload>;
const lockJob = defineWork('lock', z.object({ scriptPath: z.string() }));

const seen: Array<{ service: string; path: string; deliveryCount: number }> = [];
let lockerFailuresLeft = 1;

@Controller()
class RegistryCacheListener {
  @HandleEvent(resourceChanged, { durable: 'registry-cache' })
  onChanged(@Payload() event: ResourceChanged, @Ctx() ctx: MeshContext) {
    seen.push({ service: 'registry-cache', path: event.path, deliveryCount: ctx.getDeliveryCount() });
  }
}

@Controller()
class LockerListener {
  @HandleEvent(resourceChanged, { durable: 'locker-relock', backoffMs: [50] })
  onChanged(@Payload() event: ResourceChanged, @Ctx() ctx: MeshContext) {
    seen.push({ service: 'locker', path: event.path, deliveryCount: ctx.getDeliveryCount() });
    if (lockerFailuresLeft-- > 0) throw new Error('lock service warming up');
  }
}

describe('events: one durable consumer per subscribing service', () => {
  let mesh: MeshFixture;
  let client: MeshClient;

  beforeAll(async () => {
    mesh = await MeshFixture.create('evt');
    client = new MeshClient(await mesh.connect('publisher'));
    await mesh.startApp([RegistryCacheListener]);
    await mesh.startApp([LockerListener]);
  });

  afterAll(async () => {
    await mesh?.dispose();
  });

  it('every subscribing service gets the event; a failure is retried for that service only', async () => {
    await client.publishEvent(resourceChanged, { path: 'f/team/agent', version: 2 });
    await waitFor(() => seen.filter((s) => s.path === 'f/team/agent').length === 3, {
      description: 'both services to handle the event (the locker twice)',
    });
    expect(seen.filter((s) => s.service === 'registry-cache')).toEqual([
      { service: 'registry-cache', path: 'f/team/agent', deliveryCount: 1 },
    ]);
    expect(seen.filter((s) => s.service === 'locker').map((s) => s.deliveryCount)).toEqual([1, 2]);
  });

  it('an invalid event is refused before publishing', async () => {
    await expect(client.publishEvent(resourceChanged, { path: 'x', version: 1.5 })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { issues: [{ path: 'version' }] },
    });
  });
});

describe('JetStream deduplication by Nats-Msg-Id', () => {
  let mesh: MeshFixture;
  let client: MeshClient;

  beforeAll(async () => {
    mesh = await MeshFixture.create('dedup');
    client = new MeshClient(await mesh.connect('publisher'));
  });

  afterAll(async () => {
    await mesh?.dispose();
  });

  it('a duplicate publish with the same id is stored once', async () => {
    const first = await client.enqueueWork(
      lockJob,
      'default',
      { scriptPath: 'u/ada/etl' },
      { msgId: 'lock:u/ada/etl:7' },
    );
    const second = await client.enqueueWork(
      lockJob,
      'default',
      { scriptPath: 'u/ada/etl' },
      { msgId: 'lock:u/ada/etl:7' },
    );
    expect(first.duplicate).toBe(false);
    expect(second).toEqual({ ...first, duplicate: true });
    expect(await mesh.streamMessages(STREAMS.work.name)).toBe(1);

    const third = await client.enqueueWork(
      lockJob,
      'default',
      { scriptPath: 'u/ada/etl' },
      { msgId: 'lock:u/ada/etl:8' },
    );
    expect(third.duplicate).toBe(false);
    expect(await mesh.streamMessages(STREAMS.work.name)).toBe(2);
  });

  it('events deduplicate the same way', async () => {
    const event = { path: 'u/ada/flow', version: 1 };
    await client.publishEvent(resourceChanged, event, { msgId: 'resource:u/ada/flow:1' });
    const again = await client.publishEvent(resourceChanged, event, { msgId: 'resource:u/ada/flow:1' });
    expect(again.duplicate).toBe(true);
    expect(await mesh.streamMessages(STREAMS.events.name)).toBe(1);
  });

  it('a publish with no stream behind the subject is UNAVAILABLE naming it', async () => {
    const other = await MeshFixture.create('nostream');
    const conn = await other.connect('publisher');
    await conn.jsm.streams.delete(other.space.streamName(STREAMS.work.name));
    await expect(new MeshClient(conn).enqueueWork(lockJob, 'gpu', { scriptPath: 'x' })).rejects.toMatchObject(
      {
        code: 'UNAVAILABLE',
        message: expect.stringContaining(`${other.prefix}.work.gpu.lock`) as string,
      },
    );
    await other.dispose();
  });
});
