import { randomBytes } from 'node:crypto';
import {
  createLockerClient,
  createRegistryIdentityClient,
  createRegistryItemsClient,
  DEPLOY_EVENTS,
  LOCK_EVENTS,
  MeshError,
  STREAMS,
  type Actor,
} from '@flowmesh/contracts';
import { connectMesh, listenToEvent, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import {
  startMesh,
  startPackumentRegistry,
  startTestService,
  waitFor,
  type PackumentRegistry,
  type TestMesh,
  type TestService,
} from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dependencyLockerDefinition } from '../src/dependency-locker.definition.js';

// Items deployed before dependency-locker ran (their deploy events gone from the stream) are
// unknown to it until an admin rebuilds the workspace's map: the registry announces each again and
// the locker maps and locks them as deploys. Real registry (its build output), real NATS and Postgres.
describe('dependency-locker: locker.depmap.rebuild', () => {
  let mesh: TestMesh;
  let npm: PackumentRegistry;
  let conn: MeshConnection;
  let locker: TestService | undefined;
  const admin: Actor = { token: `fm_test_${randomBytes(24).toString('base64url')}` };
  const inMain = { actor: admin, workspace: 'main' };

  beforeAll(async () => {
    npm = await startPackumentRegistry({ 'fm-alpha': { '1.0.0': {}, '1.1.0': {} } });
    mesh = await startMesh({
      processes: ['resource-registry'],
      env: { FLOWMESH_ADMIN_TOKEN: admin.token, FLOWMESH_ADMIN_EMAIL: 'admin@example.test' },
    });
    conn = await connectMesh({
      url: mesh.env.NATS_URL,
      name: 'depmap-rebuild-test',
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    });
  }, 180_000);

  /** The locker's `evt.deploy.*` consumers exist and have nothing undelivered or unacknowledged. */
  const deployConsumersCaughtUp = () => {
    const stream = conn.space.streamName(STREAMS.events.name);
    return waitFor(
      async () => {
        await conn.nc.flush();
        for (const durable of ['dependency-locker-deploy-saved', 'dependency-locker-deploy-deleted']) {
          const info = await conn.jsm.consumers
            .info(stream, conn.space.durableName(durable))
            .catch(() => undefined);
          if (!info || info.num_pending > 0 || info.num_ack_pending > 0) return undefined;
        }
        return true;
      },
      { timeoutMs: 60_000, intervalMs: 100, description: "the locker's deploy consumers caught up" },
    );
  };

  afterAll(async () => {
    await conn?.drain();
    await locker?.stop();
    await mesh?.stop();
    await npm?.close();
  });

  it('maps and locks what was deployed before the locker ran; admins only', async () => {
    const client = new MeshClient(conn);
    const items = createRegistryItemsClient(client);
    const identity = createRegistryIdentityClient(client);
    const announced: string[] = [];
    listenToEvent(conn, DEPLOY_EVENTS.saved, (e) => announced.push(`${e.owner_kind}:${e.path}`));
    const dir = `f/t${randomBytes(4).toString('hex')}`;
    await identity.createFolder({ ...inMain, name: dir.slice(2) });
    const script = (path: string, content: string) =>
      items.createScript({ ...inMain, path, language: 'bun', content });
    await script(`${dir}/a`, `import alpha from 'fm-alpha@1.0.0';\nexport const a = 1;`);
    await script(`${dir}/b`, `import { a } from './a';\nexport function main() { return a; }`);
    await items.createResource({
      ...inMain,
      path: `${dir}/bot`,
      resource_type: 'ai_agent',
      value: {
        provider: { kind: 'openai', resource: '$res:f/ai/openai', model: 'gpt-4o-mini' },
        tools: [
          {
            id: 'a',
            summary: 'a',
            value: { tool_type: 'flowmodule', type: 'script', path: `${dir}/a`, input_transforms: {} },
          },
        ],
      },
    });
    await waitFor(() => (announced.length >= 3 ? true : undefined), {
      description: 'the three deploys announced',
    });
    // The deploys happened while no locker ran, long enough ago that the stream no longer has them.
    await conn.jsm.streams.purge(conn.space.streamName(STREAMS.events.name), {
      filter: conn.space.subject('evt.deploy.>'),
    });

    locker = await startTestService(dependencyLockerDefinition, {
      env: {
        FLOWMESH_SUBJECT_PREFIX: mesh.env.FLOWMESH_SUBJECT_PREFIX,
        FLOWMESH_LOCKER_NPM_REGISTRY: npm.url,
        FLOWMESH_LOCKER_POLL_MS: '200',
      },
    });
    const completed: string[] = [];
    listenToEvent(conn, LOCK_EVENTS.completed, (e) => completed.push(`${e.owner_kind}:${e.path}`));
    const status = createLockerClient(client);
    const importsOf = async (kind: 'script' | 'agent', path: string) =>
      (await status.lockStatus({ ...inMain, owner_kind: kind, path })).imports.map(
        (e) => `${e.node_id} ${e.edge_kind} ${e.imported_path}`,
      );
    // Empty because nothing reached the locker, not because it has not got round to it yet: its
    // deploy consumers have taken and acknowledged all the stream holds (a deploy's code and its
    // path references are recorded before the ack), so what follows is not a matter of timing.
    await deployConsumersCaughtUp();
    expect((await status.lockStatus({ ...inMain, owner_kind: 'script', path: `${dir}/b` })).units).toEqual(
      [],
    );
    expect(await importsOf('agent', `${dir}/bot`)).toEqual([]);

    // Not an admin: refused, nothing announced.
    await identity.addUser({ ...inMain, email: 'dana@example.test', username: 'dana' });
    const { token } = await identity.createApiToken({ ...inMain, username: 'dana', label: 'rebuild' });
    const refused = await status.rebuildDepmap({ actor: { token }, workspace: 'main' }).then(
      () => undefined,
      (error: unknown) => error as MeshError,
    );
    expect(refused).toBeInstanceOf(MeshError);
    expect(refused?.code).toBe('PERMISSION_DENIED');

    announced.length = 0;
    const counts = await status.rebuildDepmap(inMain);
    expect(counts).toMatchObject({ scripts: 2, agents: 1 });
    // The event, or the lock itself should the event have been missed: what the test is about is
    // that B gets locked at all (under a loaded machine's CI this took over 90 s once).
    await waitFor(
      async () =>
        completed.includes(`script:${dir}/b`) ||
        ((await items.getScript({ ...inMain, path: `${dir}/b` })).lock ?? '').includes('"fm-alpha"')
          ? true
          : undefined,
      { timeoutMs: 180_000, description: 'B locked' },
    );
    expect(await importsOf('script', `${dir}/b`)).toEqual([` relative_import ${dir}/a`]);
    await waitFor(
      async () =>
        (await importsOf('agent', `${dir}/bot`)).includes(`a path_tool ${dir}/a`) ? true : undefined,
      { timeoutMs: 120_000, description: 'the agent mapped' },
    );
    const locked = (await items.getScript({ ...inMain, path: `${dir}/b` })).lock ?? '';
    expect(locked).toContain('"fm-alpha":"1.0.0"');
  }, 420_000);
});
