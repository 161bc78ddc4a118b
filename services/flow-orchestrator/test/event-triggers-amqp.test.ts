import { connect, type Channel, type ChannelModel } from 'amqplib';
import { waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEventTriggerMesh, WORKSPACE, type EventTriggerMesh } from './support/event-trigger-mesh.js';

/**
 * AMQP 0-9-1 triggers on the RabbitMQ of this machine (127.0.0.1:5672, guest/guest) and processes
 * from the build (two orchestrator replicas and a worker): each queue's messages become runs,
 * acknowledged once queued; the listening replica SIGKILLed mid-stream loses none and runs none
 * twice (each message carries a message id, from which its run's job id is derived).
 */
const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
let m: EventTriggerMesh;
let broker: ChannelModel;
let channel: Channel;
let prefix: string;

beforeAll(async () => {
  m = await startEventTriggerMesh();
  const inMain = { actor: m.actor, workspace: WORKSPACE };
  const url = new URL(AMQP_URL);
  await m.items.createResourceType({ ...inMain, name: 'amqp', schema: {} });
  await m.items.createResource({
    ...inMain,
    path: 'u/admin/rabbit',
    resource_type: 'amqp',
    value: {
      host: url.hostname,
      port: Number(url.port || 5672),
      username: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    },
  });
  await m.items.createResource({
    ...inMain,
    path: 'u/admin/rabbit_wrong',
    resource_type: 'amqp',
    value: {
      host: url.hostname,
      port: Number(url.port || 5672),
      username: 'guest',
      password: 'not-the-Passw0rd',
    },
  });
  broker = await connect(AMQP_URL);
  channel = await broker.createChannel();
  prefix = m.mesh.env.FLOWMESH_SUBJECT_PREFIX.replace(/[^\w]/g, '_');
}, 240_000);

afterAll(async () => {
  if (channel) {
    for (const queue of ['events', 'orders'])
      await channel.deleteQueue(`${prefix}_${queue}`).catch(() => undefined);
    await channel.deleteExchange(`${prefix}_events`).catch(() => undefined);
  }
  await broker?.close().catch(() => undefined);
  await m?.stop();
}, 180_000);

describe('AMQP triggers', () => {
  it('binds its queue to an exchange and hands the preprocessor Windmill’s event', async () => {
    const exchange = `${prefix}_events`;
    const queue = `${prefix}_events`;
    await channel.assertExchange(exchange, 'topic', { durable: false, autoDelete: false });
    const created = await m.http('POST', 'amqp_triggers/create', {
      path: 'u/admin/events',
      script_path: 'u/admin/read_event',
      is_flow: false,
      amqp_resource_path: 'u/admin/rabbit',
      queue_name: queue,
      exchange: { exchange_name: exchange, routing_keys: ['order.*'] },
      options: { prefetch_count: 4 },
    });
    expect([created.status, created.text]).toEqual([201, 'u/admin/events']);
    await m.untilState('amqp', 'u/admin/events', 'listening');
    channel.publish(exchange, 'order.created', Buffer.from('{"id":1}'), {
      messageId: 'm-1',
      headers: { tenant: 'a' },
    });
    channel.publish(exchange, 'invoice.created', Buffer.from('{"id":2}'), { messageId: 'm-2' });
    const [run] = await m.endedRuns('amqp', 'u/admin/events', 1);
    expect(await m.resultOf(run.id)).toMatchObject({
      kind: 'amqp',
      text: '{"id":1}',
      exchange,
      routing_key: 'order.created',
      queue_name: queue,
      redelivered: false,
      message_id: 'm-1',
      headers: { tenant: 'a' },
    });
    expect(typeof ((await m.resultOf(run.id)) as { delivery_tag: unknown }).delivery_tag).toBe('number');
    // The queue is empty (acknowledged), and the routing key nobody bound ran nothing.
    await waitFor(async () => ((await channel.checkQueue(queue)).messageCount === 0 ? true : undefined), {
      description: 'the queue to be empty',
    });
    expect(await m.runsOf('amqp', 'u/admin/events')).toHaveLength(1);
  });

  it('runs every queued message exactly once while the listening replica is SIGKILLed mid-stream', async () => {
    const queue = `${prefix}_orders`;
    await m.triggers.create({
      actor: m.actor,
      workspace: WORKSPACE,
      kind: 'amqp',
      trigger: {
        path: 'u/admin/orders',
        script_path: 'u/admin/decode',
        is_flow: false,
        amqp_resource_path: 'u/admin/rabbit',
        queue_name: queue,
      },
    });
    await m.untilState('amqp', 'u/admin/orders', 'listening');
    const TOTAL = 60;
    const publishing = (async () => {
      for (let n = 0; n < TOTAL; n++) {
        channel.sendToQueue(queue, Buffer.from(`order-${n}`), { messageId: `order-${n}`, persistent: true });
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
    })();
    await waitFor(async () => ((await m.runsOf('amqp', 'u/admin/orders')).length >= 10 ? true : undefined), {
      timeoutMs: 60_000,
      description: 'ten runs before the kill',
    });
    const killed = await m.killHolder('amqp', 'u/admin/orders');
    const killedAt = Date.now();
    await m.untilMoved('amqp', 'u/admin/orders', killed.serverId);
    expect(Date.now() - killedAt).toBeLessThan(15_000);
    await m.replace(killed.index);
    await publishing;
    const runs = await m.endedRuns('amqp', 'u/admin/orders', TOTAL);
    const results = await m.resultsOf(runs);
    expect(runs).toHaveLength(TOTAL);
    expect([...new Set(results)].sort()).toEqual(
      Array.from({ length: TOTAL }, (_, n) => `order-${n}`).sort(),
    );
    expect(runs.every((run) => run.status === 'completed')).toBe(true);
    await waitFor(async () => ((await channel.checkQueue(queue)).messageCount === 0 ? true : undefined), {
      description: 'every message acknowledged',
    });
  });

  it('runs a failing script with its retry, then its error handler with Windmill’s arguments', async () => {
    const inMain = { actor: m.actor, workspace: WORKSPACE };
    await m.items.createScript({
      ...inMain,
      path: 'u/admin/fails',
      summary: 'fails',
      language: 'bun',
      content: "export async function main(payload: string) { throw new Error('boom ' + atob(payload)); }",
    });
    await m.items.createScript({
      ...inMain,
      path: 'u/admin/on_error',
      summary: 'error handler',
      language: 'bun',
      content:
        'export async function main(error: any, path: string, is_flow: boolean, trigger_path: string, workspace_id: string, team: string) { return { message: error.message, path, is_flow, trigger_path, workspace_id, team }; }',
    });
    const flowOnly = await m.http('POST', 'amqp_triggers/create', {
      path: 'u/admin/flow_handler',
      script_path: 'u/admin/fails',
      is_flow: true,
      amqp_resource_path: 'u/admin/rabbit',
      queue_name: `${prefix}_handled`,
      error_handler_path: 'script/u/admin/on_error',
    });
    expect(flowOnly.status).toBe(400);
    expect(flowOnly.text).toContain('error_handler_path');
    const queue = `${prefix}_handled`;
    await m.triggers.create({
      ...inMain,
      kind: 'amqp',
      trigger: {
        path: 'u/admin/handled',
        script_path: 'u/admin/fails',
        is_flow: false,
        amqp_resource_path: 'u/admin/rabbit',
        queue_name: queue,
        error_handler_path: 'script/u/admin/on_error',
        error_handler_args: { team: 'ops' },
        retry: { constant: { attempts: 1, seconds: 0 } },
      },
    });
    await m.untilState('amqp', 'u/admin/handled', 'listening');
    channel.sendToQueue(queue, Buffer.from('order-7'), { messageId: 'handled-1' });
    const [run] = await m.endedRuns('amqp', 'u/admin/handled', 1);
    expect(run.status).toBe('failed');
    const job = await m.jobs.get({ ...inMain, id: run.id });
    expect(job.result).toMatchObject({
      message: expect.stringContaining('boom order-7') as unknown,
      path: 'u/admin/fails',
      is_flow: false,
      trigger_path: 'amqp_trigger/u/admin/handled',
      workspace_id: WORKSPACE,
      team: 'ops',
    });
    // The script ran twice (its retry) before the handler.
    const steps = (job.flow_status as { modules: Array<{ failed_retries?: unknown[] }> }).modules;
    expect(steps[0].failed_retries).toHaveLength(1);
    await channel.deleteQueue(queue).catch(() => undefined);
  });

  it('says error when the broker refuses it, without its password anywhere', async () => {
    await m.triggers.create({
      actor: m.actor,
      workspace: WORKSPACE,
      kind: 'amqp',
      trigger: {
        path: 'u/admin/refused',
        script_path: 'u/admin/decode',
        is_flow: false,
        amqp_resource_path: 'u/admin/rabbit_wrong',
        queue_name: `${prefix}_refused`,
      },
    });
    const failing = await m.untilState('amqp', 'u/admin/refused', 'error');
    expect(failing.error).toMatch(/ACCESS.REFUSED|403/i);
    expect(failing.error_since).toBeTruthy();
    expect(JSON.stringify(failing)).not.toContain('not-the-Passw0rd');
    expect(m.output.join('\n')).not.toContain('not-the-Passw0rd');
    await m.triggers.delete({ actor: m.actor, workspace: WORKSPACE, kind: 'amqp', path: 'u/admin/refused' });
  });
});
