import { randomBytes } from 'node:crypto';
import {
  createMemoryClient,
  createRegistryIdentityClient,
  MeshError,
  type Actor,
  type MemoryClient,
} from '@flowmesh/contracts';
import { connectMesh, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import { startMesh, startTestService, type TestMesh, type TestService } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryServiceDefinition } from '../src/memory-service.definition.js';
import { answer, user } from './support/chat-fixtures.js';

// Permissions decided by the real resource-registry (its build output, as its own process) on
// the same subject prefix: folder roles, API tokens and scoped job tokens.
describe('memory-service: permissions from the resource-registry', () => {
  let mesh: TestMesh;
  let service: TestService;
  let memory: MemoryClient;
  let conn: MeshConnection;
  const admin: Actor = { token: `fm_test_${randomBytes(24).toString('base64url')}` };
  const actors: Record<'reader' | 'stranger' | 'memoryJob' | 'flowsJob', Actor> = {} as never;
  const chat = { workspace: 'main', flowPath: 'f/team/chat' };

  beforeAll(async () => {
    mesh = await startMesh({
      processes: ['resource-registry'],
      env: { FLOWMESH_ADMIN_TOKEN: admin.token, FLOWMESH_ADMIN_EMAIL: 'admin@example.test' },
    });
    service = await startTestService(memoryServiceDefinition, {
      env: { FLOWMESH_SUBJECT_PREFIX: mesh.env.FLOWMESH_SUBJECT_PREFIX },
    });
    // The test service's own client speaks its generated prefix; this one speaks the mesh's.
    conn = await connectMesh({
      url: mesh.env.NATS_URL,
      name: 'memory-registry-test',
      prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
    });
    const client = new MeshClient(conn);
    memory = createMemoryClient(client);
    const registry = createRegistryIdentityClient(client);
    const inMain = { actor: admin, workspace: 'main' };
    for (const username of ['reader', 'stranger'] as const) {
      await registry.addUser({ ...inMain, email: `${username}@example.test`, username });
      actors[username] = {
        token: (await registry.createApiToken({ ...inMain, username, label: 'test' })).token,
      };
    }
    await registry.createFolder({ ...inMain, name: 'team', readers: ['u/reader'] });
    // Jobs run as the reader; one may touch memory under f/team, the other only read flows.
    for (const [name, scopes] of [
      ['memoryJob', ['memory:read:f/team/*']],
      ['flowsJob', ['flows:read:f/team/*']],
    ] as const) {
      const issued = await registry.issueJobToken({
        ...inMain,
        jobId: name,
        onBehalfOf: 'u/reader',
        scopes: [...scopes],
        ttlSeconds: 600,
      });
      actors[name] = { token: issued.token };
    }
  }, 120_000);

  afterAll(async () => {
    await conn?.drain();
    await service?.stop();
    await mesh?.stop();
  });

  const failure = async (promise: Promise<unknown>): Promise<MeshError> => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MeshError);
    return error as MeshError;
  };
  const http = async (method: string, path: string, actor: Actor) => {
    const response = await fetch(`${service.url}/api/w/main${path}`, {
      method,
      headers: { authorization: `Bearer ${actor.token}` },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('lets those who may read the flow read its memories, and only writers delete them', async () => {
    const saved = await memory.save({
      ...chat,
      actor: admin,
      memoryKey: 'k',
      stepId: 'a',
      mode: 'window',
      messages: [user('q'), answer('a')],
    });
    expect(saved.status).toBe('saved');

    expect(
      (await memory.load({ ...chat, actor: actors.reader, memoryKey: 'k', stepId: 'a' })).messages,
    ).toHaveLength(2);
    expect((await http('GET', '/ai_memory/list', actors.reader)).body.memories).toEqual([
      expect.objectContaining({ memoryId: saved.memoryId, flowPath: 'f/team/chat' }),
    ]);
    expect((await failure(memory.delete({ ...chat, actor: actors.reader, memoryKey: 'k' }))).code).toBe(
      'PERMISSION_DENIED',
    );

    expect(
      (await failure(memory.load({ ...chat, actor: actors.stranger, memoryKey: 'k', stepId: 'a' }))).code,
    ).toBe('PERMISSION_DENIED');
    expect((await http('GET', '/ai_memory/list', actors.stranger)).body.memories).toEqual([]);
    expect((await http('GET', `/ai_memory/get/${saved.memoryId}/a`, actors.stranger)).status).toBe(403);
  });

  it('lets a job token act under its memory scopes only', async () => {
    const run = { ...chat, actor: actors.memoryJob, memoryKey: 'run-1', stepId: 'a' };
    expect((await memory.save({ ...run, mode: 'window', messages: [user('from the job')] })).status).toBe(
      'saved',
    );
    expect((await memory.load(run)).messages).toEqual([user('from the job')]);
    expect((await failure(memory.load({ ...run, flowPath: 'f/other/chat' }))).code).toBe('PERMISSION_DENIED');
    expect((await failure(memory.load({ ...run, actor: actors.flowsJob }))).code).toBe('PERMISSION_DENIED');
  });

  it("answers a bad token and an unknown workspace with the registry's errors", async () => {
    const forged = await failure(
      memory.load({ ...chat, actor: { token: 'forged' }, memoryKey: 'k', stepId: 'a' }),
    );
    expect(forged.code).toBe('UNAUTHENTICATED');
    const nowhere = await failure(
      memory.load({ ...chat, workspace: 'nowhere', actor: admin, memoryKey: 'k', stepId: 'a' }),
    );
    expect(nowhere).toMatchObject({ code: 'NOT_FOUND', message: 'workspace "nowhere" not found' });
    expect((await http('GET', '/ai_memory/list', { token: 'forged' })).status).toBe(401);
  });
});
