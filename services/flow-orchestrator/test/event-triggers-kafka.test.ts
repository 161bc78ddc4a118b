import { freePort, waitFor } from '@flowmesh/testing';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEventTriggerMesh, WORKSPACE, type EventTriggerMesh } from './support/event-trigger-mesh.js';

/**
 * Kafka triggers on a real broker: `KAFKA_BROKERS` (comma-separated `host:port`), for none runs on
 * this machine kind and a fake would prove nothing. Each message of the topics is a run with
 * Windmill's event, its offset committed once the run is queued; the listening replica SIGKILLed
 * mid-stream loses none and runs none twice.
 */
const BROKERS = (process.env.KAFKA_BROKERS ?? '').split(',').filter(Boolean);
if (BROKERS.length === 0)
  console.log('Kafka triggers skipped: no broker here (set KAFKA_BROKERS to run them)');

let m: EventTriggerMesh;
let producer: Producer;
let prefix: string;

describe.skipIf(BROKERS.length === 0)('Kafka triggers', () => {
  beforeAll(async () => {
    m = await startEventTriggerMesh();
    prefix = m.mesh.env.FLOWMESH_SUBJECT_PREFIX.replace(/[^\w]/g, '_');
    const inMain = { actor: m.actor, workspace: WORKSPACE };
    await m.items.createResourceType({ ...inMain, name: 'kafka', schema: {} });
    await m.items.createResource({
      ...inMain,
      path: 'u/admin/kafka',
      resource_type: 'kafka',
      value: { brokers: BROKERS, security: { label: 'PLAINTEXT' } },
    });
    const kafka = new Kafka({
      clientId: 'event-triggers-test',
      brokers: BROKERS,
      logLevel: logLevel.NOTHING,
    });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [
        { topic: `${prefix}_events`, numPartitions: 1 },
        { topic: `${prefix}_orders`, numPartitions: 3 },
      ],
      waitForLeaders: true,
    });
    await admin.disconnect();
    producer = kafka.producer();
    await producer.connect();
  }, 240_000);

  afterAll(async () => {
    await producer?.disconnect().catch(() => undefined);
    await m?.stop();
  }, 180_000);

  it('runs each message with Windmill’s event', async () => {
    const created = await m.http('POST', 'kafka_triggers/create', {
      path: 'u/admin/events',
      script_path: 'u/admin/read_event',
      is_flow: false,
      kafka_resource_path: 'u/admin/kafka',
      group_id: `${prefix}_events`,
      topics: [`${prefix}_events`],
    });
    expect([created.status, created.text]).toEqual([201, 'u/admin/events']);
    await m.untilState('kafka', 'u/admin/events', 'listening');
    // A group's new member starts at the latest offset once its partitions are assigned.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await producer.send({ topic: `${prefix}_events`, messages: [{ key: 'k1', value: '{"id":1}' }] });
    const [run] = await m.endedRuns('kafka', 'u/admin/events', 1);
    expect(await m.resultOf(run.id)).toMatchObject({
      kind: 'kafka',
      text: '{"id":1}',
      topic: `${prefix}_events`,
      group_id: `${prefix}_events`,
      brokers: BROKERS,
      key: 'k1',
    });
  });

  it('runs every message exactly once while the listening replica is SIGKILLed mid-stream', async () => {
    const topic = `${prefix}_orders`;
    await m.triggers.create({
      actor: m.actor,
      workspace: WORKSPACE,
      kind: 'kafka',
      trigger: {
        path: 'u/admin/orders',
        script_path: 'u/admin/decode',
        is_flow: false,
        kafka_resource_path: 'u/admin/kafka',
        group_id: `${prefix}_orders`,
        topics: [topic],
      },
    });
    await m.untilState('kafka', 'u/admin/orders', 'listening');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const TOTAL = 60;
    const publishing = (async () => {
      for (let n = 0; n < TOTAL; n++) {
        await producer.send({ topic, messages: [{ key: String(n % 3), value: `order-${n}` }] });
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
    })();
    await waitFor(async () => ((await m.runsOf('kafka', 'u/admin/orders')).length >= 10 ? true : undefined), {
      timeoutMs: 60_000,
      description: 'ten runs before the kill',
    });
    const killed = await m.killHolder('kafka', 'u/admin/orders');
    await m.untilMoved('kafka', 'u/admin/orders', killed.serverId);
    await m.replace(killed.index);
    await publishing;
    const runs = await m.endedRuns('kafka', 'u/admin/orders', TOTAL);
    const results = await m.resultsOf(runs);
    expect(runs).toHaveLength(TOTAL);
    expect([...new Set(results)].sort()).toEqual(
      Array.from({ length: TOTAL }, (_, n) => `order-${n}`).sort(),
    );
  });
});

describe('Kafka triggers without a broker', () => {
  let away: EventTriggerMesh;

  beforeAll(async () => {
    away = await startEventTriggerMesh();
  }, 240_000);

  afterAll(async () => {
    await away?.stop();
  }, 180_000);

  it('are saved with Windmill’s API and say error, the last error and since when while no broker answers', async () => {
    const inMain = { actor: away.actor, workspace: WORKSPACE };
    await away.items.createResourceType({ ...inMain, name: 'kafka', schema: {} });
    await away.items.createResource({
      ...inMain,
      path: 'u/admin/kafka_away',
      resource_type: 'kafka',
      value: { brokers: [`127.0.0.1:${await freePort()}`], security: { label: 'PLAINTEXT' } },
    });
    const refused = await away.http('POST', 'kafka_triggers/create', {
      path: 'u/admin/bad',
      script_path: 'u/admin/decode',
      is_flow: false,
      kafka_resource_path: 'u/admin/kafka_away',
      group_id: 'g',
      topics: [],
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('topics');
    const created = await away.http('POST', 'kafka_triggers/create', {
      path: 'u/admin/away',
      script_path: 'u/admin/decode',
      is_flow: false,
      kafka_resource_path: 'u/admin/kafka_away',
      group_id: 'flowmesh',
      topics: ['orders'],
    });
    expect([created.status, created.text]).toEqual([201, 'u/admin/away']);
    const failing = await away.untilState('kafka', 'u/admin/away', 'error', 90_000);
    expect(failing).toMatchObject({ kind: 'kafka', topics: ['orders'], group_id: 'flowmesh' });
    expect(failing.error).toBeTruthy();
    expect(failing.error_since).toBeTruthy();
  });
});
