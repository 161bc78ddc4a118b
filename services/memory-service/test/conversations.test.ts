import { createMemoryClient, MeshError, type MemoryClient } from '@flowmesh/contracts';
import { startTestService, type TestService } from '@flowmesh/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryServiceDefinition } from '../src/memory-service.definition.js';
import { answer, user } from './support/chat-fixtures.js';
import { FakeRegistry } from './support/fake-registry.js';

// Chat conversations through the NATS contract, as the orchestrator and the agent runtime use them.
const actor = { token: 'job-token' };
const reader = { token: 'reader' };
const chatFlow = { actor, workspace: 'main', flowPath: 'f/team/chat' };

describe('memory-service: conversations', () => {
  let service: TestService;
  let registry: FakeRegistry;
  let memory: MemoryClient;

  beforeAll(async () => {
    service = await startTestService(memoryServiceDefinition);
    registry = new FakeRegistry(service.conn, ['main'], {
      'job-token': { workspace: 'main', username: 'alice', read: ['f/team/'], write: ['f/team/'] },
      reader: { workspace: 'main', username: 'bob', read: ['f/team/'], write: [] },
      outsider: { workspace: 'main', username: 'mallory', read: ['f/private/'], write: [] },
    });
    await registry.start();
    memory = createMemoryClient(service.client);
  });

  afterAll(async () => {
    registry?.stop();
    await service?.stop();
  });

  const failure = async (promise: Promise<unknown>): Promise<MeshError> => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MeshError);
    return error as MeshError;
  };

  it('opens a conversation per run memory id, appends its transcript in order and pages through it', async () => {
    const runMemoryId = randomUUID();
    const started = await memory.startConversation({
      ...chatFlow,
      conversation: runMemoryId,
      title: 'Invoices',
    });
    expect(started).toMatchObject({
      id: runMemoryId,
      flowPath: 'f/team/chat',
      title: 'Invoices',
      messageCount: 0,
    });
    expect(await memory.startConversation({ ...chatFlow, conversation: runMemoryId })).toMatchObject({
      id: runMemoryId,
      title: 'Invoices',
    });

    const entries = Array.from({ length: 7 }, (_, i) => ({
      role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `line ${i + 1}`,
    }));
    const appended = await Promise.all(
      entries.map((entry, i) =>
        memory.appendConversationMessage({
          ...chatFlow,
          conversation: runMemoryId,
          jobId: `job-${i}`,
          stepId: 'agent',
          ...entry,
        }),
      ),
    );
    expect(appended.map((reply) => reply.seq).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);

    const page = (page: number, order: 'asc' | 'desc' = 'asc') =>
      memory.listConversationMessages({
        actor: reader,
        workspace: 'main',
        conversationId: runMemoryId,
        page,
        perPage: 3,
        order,
      });
    expect((await page(1)).messages.map((m) => m.seq)).toEqual([1, 2, 3]);
    expect((await page(3)).messages.map((m) => m.seq)).toEqual([7]);
    expect((await page(1, 'desc')).messages.map((m) => m.seq)).toEqual([7, 6, 5]);
    const first = (await page(1)).messages[0];
    expect(first).toMatchObject({
      conversationId: runMemoryId,
      stepId: 'agent',
      jobId: expect.stringMatching(/^job-\d$/) as unknown,
    });
    expect(entries.map((e) => e.content)).toContain(first?.content);

    const listed = await memory.listConversations({
      actor: reader,
      workspace: 'main',
      flowPath: 'f/team/chat',
    });
    expect(listed.conversations.find((c) => c.id === runMemoryId)).toMatchObject({ messageCount: 7 });
  });

  it('keeps the transcript on the run memory id while a step keeps memory under its own key; deleting the conversation deletes its memories only', async () => {
    const runMemoryId = randomUUID();
    // The step with managed memory on the run's id, and a step with its own memory key.
    await memory.save({
      ...chatFlow,
      memoryKey: runMemoryId,
      stepId: 'a',
      mode: 'compaction',
      messages: [user('hi'), answer('hello')],
    });
    await memory.save({
      ...chatFlow,
      memoryKey: runMemoryId,
      stepId: 'b',
      mode: 'window',
      messages: [user('hi')],
    });
    await memory.save({
      ...chatFlow,
      memoryKey: 'customer-9',
      stepId: 'c',
      mode: 'window',
      messages: [user('own key')],
    });
    await memory.appendConversationMessage({
      ...chatFlow,
      conversation: runMemoryId,
      jobId: 'j1',
      role: 'user',
      content: 'hi',
    });
    await memory.appendConversationMessage({
      ...chatFlow,
      conversation: runMemoryId,
      jobId: 'j1',
      stepId: 'c',
      role: 'assistant',
      content: 'hello',
    });

    // A reader of the flow may read it, not delete it.
    expect(
      (
        await failure(
          memory.deleteConversation({ actor: reader, workspace: 'main', conversationId: runMemoryId }),
        )
      ).code,
    ).toBe('PERMISSION_DENIED');
    expect(
      await memory.deleteConversation({ actor, workspace: 'main', conversationId: runMemoryId }),
    ).toEqual({
      conversationId: runMemoryId,
      messagesDeleted: 2,
      memoriesDeleted: 2,
    });
    for (const stepId of ['a', 'b']) {
      expect((await memory.load({ ...chatFlow, memoryKey: runMemoryId, stepId })).version).toBeNull();
    }
    expect((await memory.load({ ...chatFlow, memoryKey: 'customer-9', stepId: 'c' })).messages).toEqual([
      user('own key'),
    ]);
    const gone = await failure(
      memory.listConversationMessages({ actor, workspace: 'main', conversationId: runMemoryId }),
    );
    expect(gone.code).toBe('NOT_FOUND');
    const listed = await memory.listConversations({ actor, workspace: 'main' });
    expect(listed.conversations.map((c) => c.id)).not.toContain(runMemoryId);
  });

  it('shows conversations only to those who may read the flow, and keeps a conversation in its flow', async () => {
    const id = randomUUID();
    await memory.appendConversationMessage({
      ...chatFlow,
      conversation: id,
      jobId: 'j',
      role: 'user',
      content: 'private',
    });
    const outsider = { token: 'outsider' };
    const list = await memory.listConversations({ actor: outsider, workspace: 'main' });
    expect(list.conversations).toEqual([]);
    expect(
      (
        await failure(
          memory.listConversationMessages({ actor: outsider, workspace: 'main', conversationId: id }),
        )
      ).code,
    ).toBe('PERMISSION_DENIED');
    const other = await failure(
      memory.appendConversationMessage({
        ...chatFlow,
        flowPath: 'f/team/other',
        conversation: id,
        jobId: 'j',
        role: 'user',
        content: 'x',
      }),
    );
    expect(other.code).toBe('CONFLICT');
    expect(
      (await failure(memory.listConversations({ actor: { token: 'forged' }, workspace: 'main' }))).code,
    ).toBe('UNAUTHENTICATED');
  });
});
