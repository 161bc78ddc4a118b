import { jetstream, jetstreamManager, RetentionPolicy } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { natsServerInstalled, startOwnNatsServer, waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEventTriggerMesh, WORKSPACE, type EventTriggerMesh } from './support/event-trigger-mesh.js';

/**
 * NATS triggers on processes from the build (two orchestrator replicas and a worker): saved over
 * HTTP and NATS, messages published on the real NATS server, runs counted through the jobs API.
 * The replica that listens is SIGKILLed while a JetStream stream is being published to: every
 * message runs exactly once.
 */
let m: EventTriggerMesh;
let nc: NatsConnection;
let prefix: string;

beforeAll(async () => {
  m = await startEventTriggerMesh();
  const inMain = { actor: m.actor, workspace: WORKSPACE };
  await m.items.createResourceType({ ...inMain, name: 'nats', schema: {} });
  await m.items.createResource({
    ...inMain,
    path: 'u/admin/nats',
    resource_type: 'nats',
    value: { servers: [new URL(m.mesh.env.NATS_URL).host], auth: { label: 'NO_AUTH' } },
  });
  nc = await connect({ servers: m.mesh.env.NATS_URL });
  prefix = m.mesh.env.FLOWMESH_SUBJECT_PREFIX.replace(/[^\w]/g, '_');
}, 240_000);

afterAll(async () => {
  await nc?.drain().catch(() => undefined);
  await m?.stop();
}, 180_000);

const encode = (text: string) => new TextEncoder().encode(text);

describe('NATS triggers', () => {
  it('saves a trigger with Windmill’s API and refuses a bad one naming the field', async () => {
    const bad = {
      path: 'u/admin/bad',
      script_path: 'u/admin/decode',
      is_flow: false,
      nats_resource_path: 'u/admin/nats',
      use_jetstream: true,
      subjects: ['a.b'],
    };
    const refused = await m.http('POST', 'nats_triggers/create', bad);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('stream_name');
    const missing = await m.http('POST', 'nats_triggers/create', {
      ...bad,
      use_jetstream: false,
      nats_resource_path: 'u/admin/nowhere',
    });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('nats_resource_path');
    expect((await m.http('GET', 'nats_triggers/exists/u/admin/bad')).text).toBe('false');
  });

  it('runs each core NATS message once, handing the preprocessor Windmill’s event', async () => {
    const subject = `${prefix}.core.orders`;
    const created = await m.http('POST', 'nats_triggers/create', {
      path: 'u/admin/core',
      script_path: 'u/admin/read_event',
      is_flow: false,
      nats_resource_path: 'u/admin/nats',
      use_jetstream: false,
      subjects: [subject],
      filters: [{ key: 'wanted', value: true }],
    });
    expect([created.status, created.text]).toEqual([201, 'u/admin/core']);
    const listening = await m.untilState('nats', 'u/admin/core', 'listening');
    expect(listening).toMatchObject({ kind: 'nats', subjects: [subject], use_jetstream: false, error: null });
    expect(m.replicas.map((p) => `${p.pid}`)).toContain(listening.server_id!.split(':').at(-1));
    for (let i = 0; i < 5; i++) nc.publish(subject, encode(JSON.stringify({ wanted: true, n: i })));
    nc.publish(subject, encode(JSON.stringify({ wanted: false, n: 99 })));
    await nc.flush();
    const runs = await m.endedRuns('nats', 'u/admin/core', 5);
    const results = (await m.resultsOf(runs)) as Array<Record<string, unknown>>;
    expect(results.map((seen) => (JSON.parse(seen.text as string) as { n: number }).n).sort()).toEqual([
      0, 1, 2, 3, 4,
    ]);
    expect(results[0]).toMatchObject({ kind: 'nats', subject, servers: [new URL(m.mesh.env.NATS_URL).host] });
    expect(results[0].length).toBe((results[0].text as string).length);
    expect(runs.every((run) => run.status === 'completed')).toBe(true);
    // The message the filter refused ran nothing, now that every other one ended.
    expect(await m.runsOf('nats', 'u/admin/core')).toHaveLength(5);
  });

  it('runs every JetStream message exactly once while the listening replica is SIGKILLed mid-stream', async () => {
    const stream = `${prefix}_ORDERS`;
    const subject = `${prefix}.js.orders`;
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: stream, subjects: [`${prefix}.js.>`], retention: RetentionPolicy.Limits });
    await m.triggers.create({
      actor: m.actor,
      workspace: WORKSPACE,
      kind: 'nats',
      trigger: {
        path: 'u/admin/stream',
        script_path: 'u/admin/decode',
        is_flow: false,
        nats_resource_path: 'u/admin/nats',
        use_jetstream: true,
        stream_name: stream,
        consumer_name: 'flowmesh_orders',
        subjects: [subject],
      },
    });
    await m.untilState('nats', 'u/admin/stream', 'listening');
    const js = jetstream(nc);
    const TOTAL = 60;
    const publishing = (async () => {
      for (let n = 0; n < TOTAL; n++) {
        await js.publish(subject, encode(`order-${n}`));
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
    })();
    // Mid-stream: some runs started, more to come.
    await waitFor(async () => ((await m.runsOf('nats', 'u/admin/stream')).length >= 10 ? true : undefined), {
      timeoutMs: 60_000,
      description: 'ten runs before the kill',
    });
    const killed = await m.killHolder('nats', 'u/admin/stream');
    const killedAt = Date.now();
    await m.untilMoved('nats', 'u/admin/stream', killed.serverId);
    expect(Date.now() - killedAt).toBeLessThan(15_000);
    await m.replace(killed.index);
    await publishing;
    const runs = await m.endedRuns('nats', 'u/admin/stream', TOTAL);
    const results = await m.resultsOf(runs);
    // Exactly one run per message: none lost, none twice.
    expect(runs).toHaveLength(TOTAL);
    expect([...new Set(results)].sort()).toEqual(
      Array.from({ length: TOTAL }, (_, n) => `order-${n}`).sort(),
    );
    expect(runs.every((run) => run.status === 'completed')).toBe(true);
    const info = await jsm.consumers.info(stream, 'flowmesh_orders');
    expect([info.num_ack_pending, info.num_pending]).toEqual([0, 0]);
  });

  it.skipIf(!natsServerInstalled())(
    'says error, the last error and since when while its broker is away, and listens again once back',
    async () => {
      const own = await startOwnNatsServer();
      try {
        await m.items.createResource({
          actor: m.actor,
          workspace: WORKSPACE,
          path: 'u/admin/own_nats',
          resource_type: 'nats',
          value: { servers: [own.url], auth: { label: 'NO_AUTH' } },
        });
        await m.triggers.create({
          actor: m.actor,
          workspace: WORKSPACE,
          kind: 'nats',
          trigger: {
            path: 'u/admin/away',
            script_path: 'u/admin/decode',
            is_flow: false,
            nats_resource_path: 'u/admin/own_nats',
            use_jetstream: false,
            subjects: ['away.orders'],
          },
        });
        await m.untilState('nats', 'u/admin/away', 'listening');
        await own.kill();
        const failing = await m.untilState('nats', 'u/admin/away', 'error');
        expect(failing.error).toBeTruthy();
        expect(Date.parse(failing.error_since!)).toBeLessThanOrEqual(Date.now());
        // Still failing later, the error has not moved its start.
        const later = await waitFor(
          async () => {
            const current = await m.trigger('nats', 'u/admin/away');
            return current.state === 'error' && current.last_server_ping !== failing.last_server_ping
              ? current
              : undefined;
          },
          { timeoutMs: 30_000, intervalMs: 200, description: 'a later report of the error' },
        );
        expect(later.error_since).toBe(failing.error_since);
        // Nothing else suffers: the mesh's own NATS trigger still runs its messages.
        const before = (await m.runsOf('nats', 'u/admin/core')).length;
        nc.publish(`${prefix}.core.orders`, encode(JSON.stringify({ wanted: true, n: 7 })));
        await m.endedRuns('nats', 'u/admin/core', before + 1);
        await own.restart();
        const back = await m.untilState('nats', 'u/admin/away', 'listening', 90_000);
        expect([back.error, back.error_since]).toEqual([null, null]);
        const ownNc = await connect({ servers: own.url });
        ownNc.publish('away.orders', encode('back'));
        await ownNc.flush();
        const [run] = await m.endedRuns('nats', 'u/admin/away', 1);
        expect(await m.resultOf(run.id)).toBe('back');
        await ownNc.close();
      } finally {
        await m.triggers
          .delete({ actor: m.actor, workspace: WORKSPACE, kind: 'nats', path: 'u/admin/away' })
          .catch(() => undefined);
        own.stop();
      }
    },
  );

  it('keeps a JetStream message whose run cannot start, says why, and runs it once it can', async () => {
    const inMain = { actor: m.actor, workspace: WORKSPACE };
    const stream = `${prefix}_LATER`;
    const subject = `${prefix}.later.orders`;
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: stream, subjects: [subject], retention: RetentionPolicy.Limits });
    const script = {
      ...inMain,
      path: 'u/admin/later',
      summary: 'decodes later',
      language: 'bun' as const,
      content: 'export async function main(payload: string) { return atob(payload); }',
    };
    await m.items.createScript(script);
    await m.triggers.create({
      ...inMain,
      kind: 'nats',
      trigger: {
        path: 'u/admin/later',
        script_path: 'u/admin/later',
        is_flow: false,
        nats_resource_path: 'u/admin/nats',
        use_jetstream: true,
        stream_name: stream,
        consumer_name: 'flowmesh_later',
        subjects: [subject],
      },
    });
    await m.untilState('nats', 'u/admin/later', 'listening');
    await m.items.deleteScript({ ...inMain, path: 'u/admin/later' });
    await jetstream(nc).publish(subject, encode('kept'));
    const waiting = await m.untilState('nats', 'u/admin/later', 'error');
    expect(waiting.error).toContain('could not start its run');
    await m.items.createScript(script);
    const [run] = await m.endedRuns('nats', 'u/admin/later', 1);
    expect(await m.resultOf(run.id)).toBe('kept');
    await m.untilState('nats', 'u/admin/later', 'listening');
    expect(await m.runsOf('nats', 'u/admin/later')).toHaveLength(1);
  });

  it('stops listening once disabled, and a deleted trigger is gone', async () => {
    const disabled = await m.http('POST', 'nats_triggers/setmode/u/admin/core', { mode: 'disabled' });
    expect([disabled.status, disabled.text]).toEqual([200, 'nats trigger u/admin/core mode set to disabled']);
    expect(await m.trigger('nats', 'u/admin/core')).toMatchObject({
      mode: 'disabled',
      enabled: false,
      state: 'disabled',
    });
    const listed = await m.triggers.list({ actor: m.actor, workspace: WORKSPACE, kind: 'nats' });
    expect(listed.triggers.map((t) => t.path).sort()).toEqual([
      'u/admin/core',
      'u/admin/later',
      'u/admin/stream',
    ]);
    const deleted = await m.http('DELETE', 'nats_triggers/delete/u/admin/stream');
    expect([deleted.status, deleted.text]).toEqual([200, 'nats trigger u/admin/stream deleted']);
    expect((await m.http('GET', 'nats_triggers/get/u/admin/stream')).status).toBe(404);
  });
});
