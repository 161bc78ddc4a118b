import { createMemoryClient, MeshError, type MemoryClient } from '@flowmesh/contracts';
import { startTestService, type TestService } from '@flowmesh/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryServiceDefinition } from '../src/memory-service.definition.js';
import { answer, user } from './support/chat-fixtures.js';
import { FakeRegistry } from './support/fake-registry.js';

// The admin HTTP API: list, read and delete memories and conversations, as the bearer may.
const job = { token: 'job-token' };
const team = { actor: job, workspace: 'main', flowPath: 'f/team/chat' };
const secret = { actor: { token: 'ops' }, workspace: 'main', flowPath: 'f/ops/secret' };

describe('memory-service: admin HTTP', () => {
  let service: TestService;
  let registry: FakeRegistry;
  let memory: MemoryClient;

  beforeAll(async () => {
    service = await startTestService(memoryServiceDefinition);
    registry = new FakeRegistry(service.conn, ['main'], {
      'job-token': { workspace: 'main', username: 'alice', read: [], write: ['f/team/'] },
      ops: { workspace: 'main', username: 'olga', read: [], write: ['f/ops/', 'f/team/'] },
      reader: { workspace: 'main', username: 'bob', read: ['f/team/'], write: [] },
    });
    await registry.start();
    memory = createMemoryClient(service.client);
  });

  afterAll(async () => {
    registry?.stop();
    await service?.stop();
  });

  const http = async (method: string, path: string, token?: string) => {
    const response = await fetch(`${service.url}/api/w/main${path}`, {
      method,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('lists, reads and deletes memories, showing each bearer only the flows it may read', async () => {
    const shared = await memory.save({
      ...team,
      memoryKey: 'shared',
      stepId: 'agent',
      mode: 'window',
      messages: [user('hi'), answer('yo')],
    });
    await memory.save({
      ...secret,
      memoryKey: 'ops',
      stepId: 'agent',
      mode: 'window',
      messages: [user('classified')],
    });

    const asReader = await http('GET', '/ai_memory/list?per_page=10', 'reader');
    expect(asReader.status).toBe(200);
    expect(asReader.body).toMatchObject({ page: 1, perPage: 10 });
    expect(asReader.body.memories).toEqual([
      expect.objectContaining({
        memoryId: shared.memoryId,
        stepId: 'agent',
        flowPath: 'f/team/chat',
        messageCount: 2,
        version: 1,
        store: 'database',
      }),
    ]);
    const asOps = await http('GET', '/ai_memory/list', 'ops');
    expect((asOps.body.memories as unknown[]).length).toBe(2);
    const filtered = await http('GET', '/ai_memory/list?flow_path=f/ops/secret', 'ops');
    expect(filtered.body.memories).toEqual([expect.objectContaining({ flowPath: 'f/ops/secret' })]);

    const read = await http('GET', `/ai_memory/get/${shared.memoryId}/agent`, 'reader');
    expect(read).toMatchObject({
      status: 200,
      body: { memoryId: shared.memoryId, messages: [user('hi'), answer('yo')] },
    });

    const opsMemory = (
      await memory.resolveKey({ workspace: 'main', flowPath: 'f/ops/secret', memoryKey: 'ops' })
    ).memoryId;
    const forbidden = await http('GET', `/ai_memory/get/${opsMemory}/agent`, 'reader');
    expect(forbidden).toMatchObject({ status: 403, body: { code: 'PERMISSION_DENIED' } });
    expect(JSON.stringify(forbidden.body)).not.toContain('classified');

    // Reading is not deleting: the reader may not, a writer of the flow may.
    expect((await http('DELETE', `/ai_memory/delete/${shared.memoryId}`, 'reader')).status).toBe(403);
    expect(await http('DELETE', `/ai_memory/delete/${shared.memoryId}`, 'job-token')).toMatchObject({
      status: 200,
      body: { memoryId: shared.memoryId, deleted: 1 },
    });
    expect((await http('GET', `/ai_memory/get/${shared.memoryId}/agent`, 'reader')).status).toBe(404);
  });

  it('shows a compaction memory as it was saved, its summary marked as one with the count it replaced', async () => {
    const summary = {
      role: 'summary' as const,
      text: 'Alice asked for the Q3 numbers.',
      replacedMessages: 6,
    };
    const saved = await memory.save({
      ...team,
      memoryKey: 'compacted',
      stepId: 'agent',
      mode: 'compaction',
      messages: [summary, answer('Q3 was up 4 %.'), user('and Q4?'), answer('Not closed yet.')],
    });
    const read = await http('GET', `/ai_memory/get/${saved.memoryId}/agent`, 'reader');
    expect(read).toMatchObject({ status: 200, body: { messageCount: 4 } });
    expect((read.body.messages as unknown[])[0]).toEqual(summary);
    expect((read.body.messages as Array<{ role: string }>).map((message) => message.role)).toEqual([
      'summary',
      'assistant',
      'user',
      'assistant',
    ]);
    // The tests below list this flow's memories: none is left behind.
    expect((await http('DELETE', `/ai_memory/delete/${saved.memoryId}`, 'job-token')).status).toBe(200);
  });

  it('answers a missing or unknown bearer with 401, and bad parameters with 400 naming them', async () => {
    expect(await http('GET', '/ai_memory/list')).toMatchObject({
      status: 401,
      body: { code: 'UNAUTHENTICATED' },
    });
    expect(await http('GET', '/ai_memory/list', 'forged')).toMatchObject({
      status: 401,
      body: { code: 'UNAUTHENTICATED' },
    });
    expect((await http('GET', `/ai_memory/get/${randomUUID()}/agent`, 'forged')).status).toBe(401);
    const badId = await http('GET', '/ai_memory/get/not-a-uuid/agent', 'reader');
    expect(badId).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect(badId.body.message).toContain('memoryId: must be a uuid');
    const badPage = await http('GET', '/ai_memory/list?page=0', 'reader');
    expect(badPage).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
  });

  it('lists conversations and their transcript, and deletes a conversation with its memories', async () => {
    const id = randomUUID();
    await memory.appendConversationMessage({
      ...team,
      conversation: id,
      jobId: 'j1',
      role: 'user',
      content: 'first',
    });
    await memory.appendConversationMessage({
      ...team,
      conversation: id,
      jobId: 'j1',
      role: 'assistant',
      content: 'second',
    });
    await memory.save({
      ...team,
      memoryKey: id,
      stepId: 'agent',
      mode: 'compaction',
      messages: [user('first'), answer('second')],
    });

    const list = await http('GET', '/conversations/list', 'reader');
    expect(list.body.conversations).toEqual([expect.objectContaining({ id, messageCount: 2 })]);
    const transcript = await http('GET', `/conversations/${id}/messages?order=desc&per_page=1`, 'reader');
    expect(transcript.body.messages).toEqual([
      expect.objectContaining({ seq: 2, role: 'assistant', content: 'second' }),
    ]);
    expect((await http('GET', '/conversations/list', 'ops')).body.conversations).toHaveLength(1);

    expect((await http('DELETE', `/conversations/delete/${id}`, 'reader')).status).toBe(403);
    expect(await http('DELETE', `/conversations/delete/${id}`, 'job-token')).toMatchObject({
      status: 200,
      body: { conversationId: id, messagesDeleted: 2, memoriesDeleted: 1 },
    });
    expect((await http('GET', `/conversations/${id}/messages`, 'reader')).status).toBe(404);
    expect((await http('GET', '/ai_memory/list', 'reader')).body.memories).toEqual([]);
  });

  it('refuses a message with a lone UTF-16 surrogate as VALIDATION_FAILED naming it, not a failed write', async () => {
    const error = await memory
      .save({ ...team, memoryKey: 'lone', stepId: 'agent', mode: 'window', messages: [user('a\ud800')] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MeshError);
    expect([(error as MeshError).code, (error as MeshError).details]).toEqual([
      'VALIDATION_FAILED',
      {
        issues: [
          { path: 'messages[0].content[0].text', message: expect.stringContaining('lone UTF-16') as unknown },
        ],
      },
    ]);
  });
});
