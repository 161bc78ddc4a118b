import { connectAsync, type MqttClient } from 'mqtt';
import { waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEventTriggerMesh, WORKSPACE, type EventTriggerMesh } from './support/event-trigger-mesh.js';

/**
 * MQTT triggers on the Mosquitto of this machine (127.0.0.1:1883) and processes from the build
 * (two orchestrator replicas and a worker): QoS 1 messages become runs, acknowledged once queued;
 * the listening replica SIGKILLed mid-stream loses none (the broker keeps the trigger's session
 * while it moves) and runs none twice (a redelivery's run is the one already started).
 */
const MQTT_URL = process.env.MQTT_URL ?? 'mqtt://127.0.0.1:1883';
let m: EventTriggerMesh;
let publisher: MqttClient;
let prefix: string;

beforeAll(async () => {
  m = await startEventTriggerMesh();
  const inMain = { actor: m.actor, workspace: WORKSPACE };
  const url = new URL(MQTT_URL);
  await m.items.createResourceType({ ...inMain, name: 'mqtt', schema: {} });
  await m.items.createResource({
    ...inMain,
    path: 'u/admin/mosquitto',
    resource_type: 'mqtt',
    value: { broker: url.hostname, port: Number(url.port || 1883) },
  });
  publisher = await connectAsync(MQTT_URL, { protocolVersion: 5 });
  prefix = m.mesh.env.FLOWMESH_SUBJECT_PREFIX.replace(/[^\w]/g, '_');
}, 240_000);

afterAll(async () => {
  await publisher?.endAsync().catch(() => undefined);
  await m?.stop();
}, 180_000);

describe('MQTT triggers', () => {
  it('runs each message of its topic filters, handing the preprocessor Windmill’s event', async () => {
    const created = await m.http('POST', 'mqtt_triggers/create', {
      path: 'u/admin/sensors',
      script_path: 'u/admin/read_event',
      is_flow: false,
      mqtt_resource_path: 'u/admin/mosquitto',
      subscribe_topics: [{ topic: `${prefix}/sensors/+/temp`, qos: 'qos1' }],
      // The broker keeps a session per client id for a day: one of this run's own.
      client_id: `${prefix}-sensors`,
      client_version: 'v5',
    });
    expect([created.status, created.text]).toEqual([201, 'u/admin/sensors']);
    await m.untilState('mqtt', 'u/admin/sensors', 'listening');
    await publisher.publishAsync(`${prefix}/sensors/kitchen/temp`, '21.5', {
      qos: 1,
      properties: { contentType: 'text/plain', userProperties: { unit: 'C' } },
    });
    await publisher.publishAsync(`${prefix}/sensors/kitchen/humidity`, '40', { qos: 1 });
    const [run] = await m.endedRuns('mqtt', 'u/admin/sensors', 1);
    const seen = (await m.resultOf(run.id)) as Record<string, unknown>;
    expect(seen).toMatchObject({
      kind: 'mqtt',
      text: '21.5',
      topic: `${prefix}/sensors/kitchen/temp`,
      retain: false,
      qos: 1,
      v5: { content_type: 'text/plain', user_properties: [['unit', 'C']] },
    });
    expect(typeof seen.pkid).toBe('number');
    expect(await m.runsOf('mqtt', 'u/admin/sensors')).toHaveLength(1);
  });

  it('runs every QoS 1 message exactly once while the listening replica is SIGKILLed mid-stream', async () => {
    const topic = `${prefix}/orders`;
    await m.triggers.create({
      actor: m.actor,
      workspace: WORKSPACE,
      kind: 'mqtt',
      trigger: {
        path: 'u/admin/orders',
        script_path: 'u/admin/decode',
        is_flow: false,
        mqtt_resource_path: 'u/admin/mosquitto',
        subscribe_topics: [{ topic, qos: 'qos1' }],
        client_id: `${prefix}-orders`,
      },
    });
    await m.untilState('mqtt', 'u/admin/orders', 'listening');
    const TOTAL = 60;
    const publishing = (async () => {
      for (let n = 0; n < TOTAL; n++) {
        await publisher.publishAsync(topic, `order-${n}`, { qos: 1 });
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
    })();
    await waitFor(async () => ((await m.runsOf('mqtt', 'u/admin/orders')).length >= 10 ? true : undefined), {
      timeoutMs: 60_000,
      description: 'ten runs before the kill',
    });
    const killed = await m.killHolder('mqtt', 'u/admin/orders');
    const killedAt = Date.now();
    await m.untilMoved('mqtt', 'u/admin/orders', killed.serverId);
    expect(Date.now() - killedAt).toBeLessThan(15_000);
    await m.replace(killed.index);
    await publishing;
    const runs = await m.endedRuns('mqtt', 'u/admin/orders', TOTAL);
    const results = await m.resultsOf(runs);
    expect(runs).toHaveLength(TOTAL);
    expect([...new Set(results)].sort()).toEqual(
      Array.from({ length: TOTAL }, (_, n) => `order-${n}`).sort(),
    );
    expect(runs.every((run) => run.status === 'completed')).toBe(true);
  });
});
