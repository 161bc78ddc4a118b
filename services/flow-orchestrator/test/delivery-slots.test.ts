import { withTestDatabase, type TestDatabase } from '@flowmesh/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionLanes } from '../src/store/connection-lanes.js';
import { EventTriggerDeliverySlots1700000055000 } from '../src/triggers/event-triggers/delivery-slots.migration.js';
import { DeliverySlots } from '../src/triggers/event-triggers/delivery-slots.store.js';

/**
 * The MQTT messages' identities on a real PostgreSQL: what a listener killed between queuing a
 * run and its PUBACK sees again (the same packet id, DUP) names the run already started; a new
 * message on a reused packet id, or one that never reached its slot, names a new one.
 */
let db: TestDatabase;
let client: pg.Client;
let slots: DeliverySlots;
const trigger = { workspace_id: 'main', kind: 'mqtt' as const, path: 'u/admin/orders' };

beforeAll(async () => {
  db = withTestDatabase('slots');
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${db.name}"`);
  await admin.end();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await new EventTriggerDeliverySlots1700000055000().up({
    query: (sql: string) => client.query(sql),
  } as never);
  const lanes = {
    query: async (sql: string, params: readonly unknown[]) =>
      (await client.query(sql, params as unknown[])).rows as unknown[],
  } as unknown as ConnectionLanes;
  slots = new DeliverySlots(lanes);
});

afterAll(async () => {
  await client?.end();
  await db?.drop();
});

describe('DeliverySlots', () => {
  it('gives a redelivery (DUP) of the slot’s last message its identity, anything else a new one', async () => {
    const first = await slots.identityOf(trigger, 'c:7', 'digest-a', false);
    // The listener died before its PUBACK: the broker sends it again, DUP.
    expect(await slots.identityOf(trigger, 'c:7', 'digest-a', true)).toBe(first);
    // Acknowledged, the packet id carries the next message, even with the same body.
    const second = await slots.identityOf(trigger, 'c:7', 'digest-a', false);
    expect(second).not.toBe(first);
    // A DUP of a message the slot never recorded (the listener died before it) is new too.
    const third = await slots.identityOf(trigger, 'c:7', 'digest-b', true);
    expect(new Set([first, second, third]).size).toBe(3);
    expect(await slots.identityOf(trigger, 'c:7', 'digest-b', true)).toBe(third);
    // Slots and triggers are apart.
    expect(await slots.identityOf(trigger, 'c:8', 'digest-a', false)).toBe('c:8:1');
    expect(await slots.identityOf({ ...trigger, path: 'u/admin/other' }, 'c:7', 'digest-a', false)).toBe(
      'c:7:1',
    );
  });
});
