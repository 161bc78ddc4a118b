import { randomBytes } from 'node:crypto';
import {
  createOrchestratorEventTriggersClient,
  createOrchestratorJobsClient,
  createRegistryItemsClient,
  isTerminalJobStatus,
  type EventTrigger,
  type JobSummary,
  type OrchestratorEventTriggersClient,
  type OrchestratorJobsClient,
  type RegistryItemsClient,
} from '@flowmesh/contracts';
import { connectMesh, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import { jetstreamManager, RetentionPolicy } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  natsServerInstalled,
  startMesh,
  startOwnNatsServer,
  startOwnProcess,
  waitFor,
  type OwnProcess,
  type TestMesh,
} from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * NATS triggers on processes from the build: the registry, two orchestrator replicas (service
 * role) and a worker. Triggers are saved over HTTP and NATS, messages published on the real
 * NATS server, runs counted through the jobs API. The replica that listens is SIGKILLed while a
 * JetStream stream is being published to: every message runs exactly once.
 */
const WORKSPACE = 'main';

interface Harness {
  mesh: TestMesh;
  conn: MeshConnection;
  nc: NatsConnection;
  jobs: OrchestratorJobsClient;
  triggers: OrchestratorEventTriggersClient;
  items: RegistryItemsClient;
  actor: { token: string };
  replicas: OwnProcess[];
  worker: OwnProcess;
  output: string[];
  prefix: string;
}

let h: Harness | undefined;
const env = (adminToken: string) => ({
  FLOWMESH_ADMIN_TOKEN: adminToken,
  FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
  LOG_LEVEL: 'warn',
});

beforeAll(async () => {
  const adminToken = `fm_evt_${randomBytes(24).toString('base64url')}`;
  const mesh = await startMesh({
    processes: ['resource-registry'],
    env: env(adminToken),
    readyTimeoutMs: 150_000,
  });
  const output: string[] = [];
  const keep = (line: string) => {
    output.push(line);
    if (output.length > 400) output.shift();
  };
  try {
    const [a, b, worker] = await Promise.all([
      startOwnProcess(mesh, 'flow-orchestrator', env(adminToken), keep),
      startOwnProcess(mesh, 'flow-orchestrator', env(adminToken), keep),
      startOwnProcess(mesh, 'flow-orchestrator-worker', env(adminToken), keep),
    ]);
    const conn = await connectMesh({
      url: mesh.env.NATS_URL,
      name: 'event-triggers',
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    });
    const client = new MeshClient(conn);
    const actor = { token: adminToken };
    const items = createRegistryItemsClient(client);
    const inMain = { actor, workspace: WORKSPACE };
    await items.createResourceType({ ...inMain, name: 'nats', schema: {} });
    await items.createResource({
      ...inMain,
      path: 'u/admin/nats',
      resource_type: 'nats',
      value: { servers: [new URL(mesh.env.NATS_URL).host], auth: { label: 'NO_AUTH' } },
    });
    // Windmill's v2 format: with a preprocessor the event, without one the payload (base64) as `payload`.
    await items.createScript({
      ...inMain,
      path: 'u/admin/read_event',
      summary: 'reads the event',
      language: 'bun',
      content: [
        'export function preprocessor(event: any) {',
        '  const { kind, payload, servers, subject, length, headers } = event;',
        '  return { seen: { kind, text: atob(payload), servers, subject, length, headers } };',
        '}',
        'export async function main(seen: unknown) { return seen; }',
      ].join('\n'),
    });
    await items.createScript({
      ...inMain,
      path: 'u/admin/decode',
      summary: 'decodes the payload',
      language: 'bun',
      content: 'export async function main(payload: string) { return atob(payload); }',
    });
    const nc = await connect({ servers: mesh.env.NATS_URL });
    h = {
      mesh,
      conn,
      nc,
      jobs: createOrchestratorJobsClient(client),
      triggers: createOrchestratorEventTriggersClient(client),
      items,
      actor,
      replicas: [a, b],
      worker,
      output,
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX.replace(/[^\w]/g, '_'),
    };
  } catch (error) {
    await mesh.stop().catch(() => undefined);
    throw error;
  }
}, 240_000);

afterAll(async () => {
  if (!h) return;
  await h.nc.drain().catch(() => undefined);
  await h.conn.drain().catch(() => undefined);
  await Promise.allSettled([...h.replicas.map((p) => p.stop()), h.worker.stop()]);
  await h.mesh.stop();
}, 180_000);

function harness(): Harness {
  if (!h) throw new Error('the mesh did not start');
  return h;
}

const withOutput = (error: unknown): never => {
  throw new Error(`${(error as Error).message}; last output:\n${harness().output.slice(-30).join('\n')}`);
};

async function http(
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  const { replicas, actor } = harness();
  const response = await fetch(`${replicas[0].url}/api/w/${WORKSPACE}/${route}`, {
    method,
    headers: {
      authorization: `Bearer ${actor.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, text: await response.text() };
}

async function trigger(path: string): Promise<EventTrigger> {
  const { triggers, actor } = harness();
  return triggers.get({ actor, workspace: WORKSPACE, kind: 'nats', path });
}

async function untilState(
  path: string,
  state: EventTrigger['state'],
  timeoutMs = 60_000,
): Promise<EventTrigger> {
  return waitFor(
    async () => {
      const current = await trigger(path);
      return current.state === state ? current : undefined;
    },
    { timeoutMs, intervalMs: 100, description: `nats trigger ${path} to be ${state}` },
  ).catch(withOutput);
}

async function runsOf(triggerPath: string): Promise<JobSummary[]> {
  const { jobs, actor } = harness();
  const { jobs: listed } = await jobs.list({ actor, workspace: WORKSPACE, limit: 1_000 });
  return listed.filter((job) => job.trigger_kind === 'nats' && job.trigger === triggerPath);
}

async function endedRuns(triggerPath: string, count: number): Promise<JobSummary[]> {
  return waitFor(
    async () => {
      const runs = await runsOf(triggerPath);
      return runs.length >= count && runs.every((job) => isTerminalJobStatus(job.status)) ? runs : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 200, description: `${count} ended runs of ${triggerPath}` },
  ).catch(withOutput);
}

async function resultOf(id: string): Promise<unknown> {
  const { jobs, actor } = harness();
  return (await jobs.get({ actor, workspace: WORKSPACE, id })).result;
}

const encode = (text: string) => new TextEncoder().encode(text);

describe('NATS triggers', () => {
  it('saves a trigger with Windmill’s API and refuses a bad one naming the field', async () => {
    const refused = await http('POST', 'nats_triggers/create', {
      path: 'u/admin/bad',
      script_path: 'u/admin/decode',
      is_flow: false,
      nats_resource_path: 'u/admin/nats',
      use_jetstream: true,
      subjects: ['a.b'],
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('stream_name');
    const missing = await http('POST', 'nats_triggers/create', {
      path: 'u/admin/bad',
      script_path: 'u/admin/decode',
      is_flow: false,
      nats_resource_path: 'u/admin/nowhere',
      use_jetstream: false,
      subjects: ['a.b'],
    });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('nats_resource_path');
    expect((await http('GET', 'nats_triggers/exists/u/admin/bad')).text).toBe('false');
  });

  it('runs each core NATS message once, handing the preprocessor Windmill’s event', async () => {
    const { nc, prefix } = harness();
    const subject = `${prefix}.core.orders`;
    const created = await http('POST', 'nats_triggers/create', {
      path: 'u/admin/core',
      script_path: 'u/admin/read_event',
      is_flow: false,
      nats_resource_path: 'u/admin/nats',
      use_jetstream: false,
      subjects: [subject],
      filters: [{ key: 'wanted', value: true }],
    });
    expect([created.status, created.text]).toEqual([201, 'u/admin/core']);
    const listening = await untilState('u/admin/core', 'listening');
    expect(listening).toMatchObject({ kind: 'nats', subjects: [subject], use_jetstream: false, error: null });
    expect(harness().replicas.map((p) => `${p.pid}`)).toContain(listening.server_id!.split(':').at(-1));
    for (let i = 0; i < 5; i++) nc.publish(subject, encode(JSON.stringify({ wanted: true, n: i })));
    nc.publish(subject, encode(JSON.stringify({ wanted: false, n: 99 })));
    await nc.flush();
    const runs = await endedRuns('u/admin/core', 5);
    const results = (await Promise.all(runs.map((run) => resultOf(run.id)))) as Array<
      Record<string, unknown>
    >;
    expect(results.map((seen) => (JSON.parse(seen.text as string) as { n: number }).n).sort()).toEqual([
      0, 1, 2, 3, 4,
    ]);
    expect(results[0]).toMatchObject({
      kind: 'nats',
      subject,
      servers: [new URL(harness().mesh.env.NATS_URL).host],
    });
    expect(results[0].length).toBe((results[0].text as string).length);
    expect(runs.every((run) => run.status === 'completed')).toBe(true);
    // The message the filter refused ran nothing, now that every other one ended.
    expect(await runsOf('u/admin/core')).toHaveLength(5);
  });

  it('runs every JetStream message exactly once while the listening replica is SIGKILLed mid-stream', async () => {
    const { nc, prefix, triggers, actor, mesh, output } = harness();
    const stream = `${prefix}_ORDERS`;
    const subject = `${prefix}.js.orders`;
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: stream, subjects: [`${prefix}.js.>`], retention: RetentionPolicy.Limits });
    await triggers.create({
      actor,
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
    const first = await untilState('u/admin/stream', 'listening');
    const js = (await import('@nats-io/jetstream')).jetstream(nc);
    const TOTAL = 60;
    let published = 0;
    const publishing = (async () => {
      for (; published < TOTAL; published++) {
        await js.publish(subject, encode(`order-${published}`));
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
    })();
    // Mid-stream: some runs started, more to come.
    await waitFor(async () => ((await runsOf('u/admin/stream')).length >= 10 ? true : undefined), {
      timeoutMs: 60_000,
      description: 'ten runs before the kill',
    }).catch(withOutput);
    const holderPid = Number(first.server_id!.split(':').at(-1));
    const index = harness().replicas.findIndex((p) => p.pid === holderPid);
    expect(index).toBeGreaterThanOrEqual(0);
    await harness().replicas[index].kill();
    const killedAt = Date.now();
    // The other replica takes the trigger over within seconds.
    const moved = await waitFor(
      async () => {
        const current = await trigger('u/admin/stream');
        return current.state === 'listening' && current.server_id !== first.server_id ? current : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, description: 'the trigger to move to the other replica' },
    ).catch(withOutput);
    const movedAfterMs = Date.now() - killedAt;
    expect(moved.server_id).not.toBe(first.server_id);
    expect(movedAfterMs).toBeLessThan(15_000);
    harness().replicas[index] = await startOwnProcess(mesh, 'flow-orchestrator', env(actor.token), (line) =>
      output.push(line),
    );
    await publishing;
    const runs = await endedRuns('u/admin/stream', TOTAL);
    const results = await Promise.all(runs.map((run) => resultOf(run.id)));
    // Exactly one run per message: none lost, none twice.
    expect(runs).toHaveLength(TOTAL);
    expect([...new Set(results)].sort()).toEqual(
      Array.from({ length: TOTAL }, (_, n) => `order-${n}`).sort(),
    );
    expect(runs.every((run) => run.status === 'completed')).toBe(true);
    const info = await jsm.consumers.info(stream, 'flowmesh_orders');
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_pending).toBe(0);
  });

  it.skipIf(!natsServerInstalled())(
    'says error, the last error and since when while its broker is away, and listens again once back',
    async () => {
      const { items, actor, nc, triggers } = harness();
      const own = await startOwnNatsServer();
      try {
        await items.createResource({
          actor,
          workspace: WORKSPACE,
          path: 'u/admin/own_nats',
          resource_type: 'nats',
          value: { servers: [own.url], auth: { label: 'NO_AUTH' } },
        });
        await triggers.create({
          actor,
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
        await untilState('u/admin/away', 'listening');
        await own.kill();
        const failing = await untilState('u/admin/away', 'error');
        expect(failing.error).toBeTruthy();
        expect(Date.parse(failing.error_since!)).toBeLessThanOrEqual(Date.now());
        // Still failing later, the error has not moved its start.
        const later = await waitFor(
          async () => {
            const current = await trigger('u/admin/away');
            return current.state === 'error' && current.last_server_ping !== failing.last_server_ping
              ? current
              : undefined;
          },
          { timeoutMs: 30_000, intervalMs: 200, description: 'a later report of the error' },
        ).catch(withOutput);
        expect(later.error_since).toBe(failing.error_since);
        // Nothing else suffers: the mesh's own NATS trigger still runs its messages.
        const before = (await runsOf('u/admin/core')).length;
        nc.publish(`${harness().prefix}.core.orders`, encode(JSON.stringify({ wanted: true, n: 7 })));
        await endedRuns('u/admin/core', before + 1);
        await own.restart();
        const back = await untilState('u/admin/away', 'listening', 90_000);
        expect([back.error, back.error_since]).toEqual([null, null]);
        const ownNc = await connect({ servers: own.url });
        ownNc.publish('away.orders', encode('back'));
        await ownNc.flush();
        const [run] = await endedRuns('u/admin/away', 1);
        expect(await resultOf(run.id)).toBe('back');
        await ownNc.close();
      } finally {
        await triggers
          .delete({ actor, workspace: WORKSPACE, kind: 'nats', path: 'u/admin/away' })
          .catch(() => undefined);
        own.stop();
      }
    },
  );

  it('stops listening once disabled, and a deleted trigger is gone', async () => {
    const { triggers, actor } = harness();
    const disabled = await http('POST', 'nats_triggers/setmode/u/admin/core', { mode: 'disabled' });
    expect([disabled.status, disabled.text]).toEqual([200, 'nats trigger u/admin/core mode set to disabled']);
    expect(await trigger('u/admin/core')).toMatchObject({
      mode: 'disabled',
      enabled: false,
      state: 'disabled',
    });
    const listed = await triggers.list({ actor, workspace: WORKSPACE, kind: 'nats' });
    expect(listed.triggers.map((t) => t.path).sort()).toEqual(['u/admin/core', 'u/admin/stream']);
    const deleted = await http('DELETE', 'nats_triggers/delete/u/admin/stream');
    expect([deleted.status, deleted.text]).toEqual([200, 'nats trigger u/admin/stream deleted']);
    expect((await http('GET', 'nats_triggers/get/u/admin/stream')).status).toBe(404);
  });
});
