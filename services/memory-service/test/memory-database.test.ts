import {
  createMemoryClient,
  MAX_MEMORY_SIZE_BYTES,
  MeshError,
  type ChatMessage,
  type MemoryClient,
} from '@flowmesh/contracts';
import { startTestService, type TestService } from '@flowmesh/testing';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryServiceDefinition } from '../src/memory-service.definition.js';
import { answer, bytesOf, conversation, toolCall, toolResult, user } from './support/chat-fixtures.js';
import { FakeRegistry } from './support/fake-registry.js';

// Agent memory in the database store, through the NATS contract, as the agent runtime uses it.
// Permissions come from a fixed table served on registry.access.check (`FakeRegistry`), so this
// suite needs no registry process; registry-permissions.test.ts runs against the real registry.
const actor = { token: 'job-token' };
const outsider = { token: 'outsider' };
const chat = { actor, workspace: 'main', flowPath: 'f/team/chat' };

describe('memory-service: agent memory in the database', () => {
  let service: TestService;
  let registry: FakeRegistry;
  let memory: MemoryClient;
  let rowCount: () => Promise<number>;

  beforeAll(async () => {
    service = await startTestService(memoryServiceDefinition);
    registry = new FakeRegistry(service.conn, ['main', 'other'], {
      'job-token': { workspace: 'main', username: 'alice', read: ['f/team/'], write: ['f/team/'] },
      outsider: { workspace: 'main', username: 'mallory', read: ['f/private/'], write: [] },
    });
    await registry.start();
    memory = createMemoryClient(service.client);
    const db = service.running.app.get(DataSource);
    rowCount = async () => {
      const rows: Array<{ n: string }> = await db.query(`SELECT count(*) AS n FROM ai_agent_memory`);
      return Number(rows[0]?.n);
    };
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

  it('keeps a uuid key as is and hashes a string key per flow, so one key in two flows names two memories', async () => {
    const uuid = 'B3A1C2D4-0000-4000-8000-000000000001';
    expect(await memory.resolveKey({ workspace: 'main', flowPath: 'f/team/chat', memoryKey: uuid })).toEqual({
      memoryId: uuid.toLowerCase(),
      hashed: false,
    });
    const inChat = await memory.resolveKey({
      workspace: 'main',
      flowPath: 'f/team/chat',
      memoryKey: 'customer-7',
    });
    const inOther = await memory.resolveKey({
      workspace: 'main',
      flowPath: 'f/team/other',
      memoryKey: 'customer-7',
    });
    expect(inChat.hashed).toBe(true);
    expect(inChat.memoryId).not.toBe(inOther.memoryId);

    await memory.save({
      ...chat,
      memoryKey: 'customer-7',
      stepId: 'a',
      mode: 'window',
      messages: [user('chat flow')],
    });
    await memory.save({
      ...chat,
      flowPath: 'f/team/other',
      memoryKey: 'customer-7',
      stepId: 'a',
      mode: 'window',
      messages: [user('other flow')],
    });
    const fromChat = await memory.load({ ...chat, memoryKey: 'customer-7', stepId: 'a' });
    const fromOther = await memory.load({
      ...chat,
      flowPath: 'f/team/other',
      memoryKey: 'customer-7',
      stepId: 'a',
    });
    expect(fromChat).toMatchObject({
      memoryId: inChat.memoryId,
      messages: [user('chat flow')],
      version: 1,
      store: 'database',
    });
    expect(fromOther).toMatchObject({ memoryId: inOther.memoryId, messages: [user('other flow')] });

    // A uuid is one memory everywhere; it stays with the flow that saved it.
    await memory.save({ ...chat, memoryKey: uuid, stepId: 'a', mode: 'window', messages: [user('by uuid')] });
    expect((await memory.load({ ...chat, memoryKey: uuid.toLowerCase(), stepId: 'a' })).messages).toEqual([
      user('by uuid'),
    ]);
    const elsewhere = await failure(
      memory.load({ ...chat, flowPath: 'f/team/other', memoryKey: uuid, stepId: 'a' }),
    );
    expect(elsewhere.code).toBe('CONFLICT');
  });

  it('returns an empty memory, with the store capacity, before the first save', async () => {
    expect(await memory.load({ ...chat, memoryKey: 'never-saved', stepId: 'a' })).toMatchObject({
      version: null,
      messages: [],
      totalMessages: 0,
      capacityBytes: MAX_MEMORY_SIZE_BYTES,
      store: null,
    });
  });

  it('replays every message shape exactly, and loads windows that never split a tool call from its results', async () => {
    const history: ChatMessage[] = [
      user('weather in Paris and Tokyo?'),
      toolCall('paris', 'tokyo'),
      toolResult('paris'),
      toolResult('tokyo'),
      answer('rainy and sunny'),
      {
        role: 'user',
        content: [
          { type: 'text', text: 'and this picture?' },
          {
            type: 'attachment',
            object: { key: 'uploads/p.png', storage: 'media' },
            mediaType: 'image/png',
            filename: 'p.png',
          },
        ],
      },
      toolCall('lookup'),
      {
        role: 'tool',
        toolCallId: 'lookup',
        name: 'get_weather',
        content: [{ type: 'text', text: 'failed' }],
        isError: true,
      },
      answer('a cloud'),
    ];
    const saved = await memory.save({
      ...chat,
      memoryKey: 'window',
      stepId: 'agent',
      mode: 'window',
      messages: history,
    });
    expect(saved).toMatchObject({
      status: 'saved',
      version: 1,
      replacedVersion: null,
      dropped: null,
      notice: null,
    });

    expect((await memory.load({ ...chat, memoryKey: 'window', stepId: 'agent' })).messages).toEqual(history);
    const window = async (size: number) =>
      (await memory.load({ ...chat, memoryKey: 'window', stepId: 'agent', window: size })).messages;
    expect(await window(4)).toEqual(history.slice(5));
    // The last 2 would start at the tool result of "lookup"; the result goes with its call.
    expect(await window(2)).toEqual([answer('a cloud')]);
    // The last 6 would start at the result for "tokyo": the window starts after it.
    expect(await window(6)).toEqual(history.slice(4));
    expect(
      (await memory.load({ ...chat, memoryKey: 'window', stepId: 'agent', window: 3 })).totalMessages,
    ).toBe(9);
  });

  it('replaces atomically under concurrent saves: the last complete write wins and each save names the version it replaced', async () => {
    const first = conversation(40, 30, 'first');
    const second = conversation(60, 30, 'second');
    await memory.save({ ...chat, memoryKey: 'race', stepId: 'a', mode: 'window', messages: [user('start')] });
    for (let round = 0; round < 8; round++) {
      const replies = await Promise.all([
        memory.save({ ...chat, memoryKey: 'race', stepId: 'a', mode: 'window', messages: first }),
        memory.save({ ...chat, memoryKey: 'race', stepId: 'a', mode: 'window', messages: second }),
      ]);
      const saved = replies.map((reply) => (reply.status === 'saved' ? reply : expect.fail(reply.status)));
      const base = 1 + round * 2;
      expect(saved.map((reply) => reply.replacedVersion).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([
        base,
        base + 1,
      ]);
      const last = saved.find((reply) => reply.version === base + 2);
      const loaded = await memory.load({ ...chat, memoryKey: 'race', stepId: 'a' });
      expect(loaded.version).toBe(base + 2);
      expect(loaded.messages).toEqual(last === saved[0] ? first : second);
    }
  });

  describe('the size limit of the database store', () => {
    const limit = MAX_MEMORY_SIZE_BYTES;
    const key = (name: string) => ({ ...chat, memoryKey: name, stepId: 'a' });

    it('saves a memory that fits', async () => {
      const history = conversation(170, 230);
      expect(bytesOf(history)).toBeGreaterThan(90_000);
      expect(bytesOf(history)).toBeLessThanOrEqual(limit);
      expect(await memory.save({ ...key('fits'), mode: 'compaction', messages: history })).toMatchObject({
        status: 'saved',
        sizeBytes: bytesOf(history),
        savedBytes: bytesOf(history),
        limitBytes: limit,
        dropped: null,
      });
    });

    it('says a compaction memory is over the limit, writes nothing, then saves it once compacted', async () => {
      await memory.save({ ...key('compact'), mode: 'compaction', messages: conversation(2) });
      const oversized = conversation(300, 230);
      const over = await memory.save({ ...key('compact'), mode: 'compaction', messages: oversized });
      expect(over).toMatchObject({
        status: 'compaction_required',
        sizeBytes: bytesOf(oversized),
        limitBytes: limit,
      });
      expect(over.notice).toContain(`over the ${limit}-byte limit`);
      expect(await memory.load(key('compact'))).toMatchObject({ version: 1, messages: conversation(2) });

      const compacted: ChatMessage[] = [
        { role: 'summary', text: 'they talked about q/a', replacedMessages: 598 },
        ...oversized.slice(-2),
      ];
      expect(
        await memory.save({ ...key('compact'), mode: 'compaction', compacted: true, messages: compacted }),
      ).toMatchObject({
        status: 'saved',
        version: 2,
        replacedVersion: 1,
        dropped: null,
      });
      expect((await memory.load(key('compact'))).messages).toEqual(compacted);
    });

    it('keeps the largest suffix of whole exchanges that fits and starts with a user message, and says what it dropped', async () => {
      const summary: ChatMessage = { role: 'summary', text: 's'.repeat(5_000) };
      const history = [summary, ...conversation(300, 230)];
      const reply = await memory.save({
        ...key('suffix'),
        mode: 'compaction',
        compacted: true,
        messages: history,
      });
      if (reply.status !== 'saved' || !reply.dropped)
        return expect.fail(`expected a trimmed save, got ${JSON.stringify(reply)}`);
      const loaded = (await memory.load(key('suffix'))).messages;
      expect(loaded[0]?.role).toBe('user');
      expect(loaded).toEqual(history.slice(history.length - loaded.length));
      expect(bytesOf(loaded)).toBeLessThanOrEqual(limit);
      // Largest: one more exchange would not fit.
      expect(bytesOf(history.slice(history.length - loaded.length - 2))).toBeGreaterThan(limit);
      expect(reply).toMatchObject({
        savedBytes: bytesOf(loaded),
        dropped: { messages: history.length - loaded.length },
      });
      expect(reply.dropped.exchanges).toBe(1 + (history.length - loaded.length - 1) / 2);
      expect(reply.notice).toContain(`${reply.dropped.exchanges} oldest exchange(s)`);

      // A window memory cannot compact: it is trimmed at once.
      const windowed = await memory.save({ ...key('suffix-window'), mode: 'window', messages: history });
      expect(windowed).toMatchObject({
        status: 'saved',
        dropped: { messages: history.length - loaded.length },
      });
    });

    it('skips the write when no user-starting suffix fits, keeping the previous memory and saying why', async () => {
      await memory.save({ ...key('skip'), mode: 'window', messages: conversation(1) });
      const huge = [...conversation(2), user('x'.repeat(limit)), answer('y')];
      const reply = await memory.save({
        ...key('skip'),
        mode: 'compaction',
        compacted: true,
        messages: huge,
      });
      expect(reply).toMatchObject({ status: 'skipped', currentVersion: 1, limitBytes: limit });
      expect(reply.notice).toContain('the next run loads the previous memory (version 1)');
      expect(await memory.load(key('skip'))).toMatchObject({ version: 1, messages: conversation(1) });
    });
  });

  describe('bad input is refused with a clear error and nothing written', () => {
    it('an unknown workspace', async () => {
      const before = await rowCount();
      const error = await failure(
        memory.save({
          ...chat,
          workspace: 'nowhere',
          memoryKey: 'k',
          stepId: 'a',
          mode: 'window',
          messages: [user('hi')],
        }),
      );
      expect(error).toMatchObject({ code: 'NOT_FOUND', message: 'workspace "nowhere" not found' });
      expect(await rowCount()).toBe(before);
    });

    it('malformed messages: a system message, an orphaned tool result, an unknown field', async () => {
      const before = await rowCount();
      const save = (messages: unknown) =>
        failure(
          memory.save({
            ...chat,
            memoryKey: 'bad',
            stepId: 'a',
            mode: 'window',
            messages: messages as ChatMessage[],
          }),
        );
      // The typed client validates before sending; the service validates the same schema on arrival.
      const system = await save([{ role: 'system', content: 'you are a bot' }]);
      expect(system.code).toBe('VALIDATION_FAILED');
      expect(system.message).toContain('messages[0].role: must be one of user, assistant, tool, summary');
      const orphan = await save([user('hi'), toolResult('nope')]);
      expect(orphan.message).toContain(
        'messages[1].toolCallId: tool result for call "nope" answers no tool call',
      );
      const unknown = await save([{ role: 'user', content: [{ type: 'text', text: 'hi', html: '<b>' }] }]);
      expect(unknown.message).toContain('messages[0].content[0]');

      // The same through a raw request, as a client that skipped validation would send it.
      const raw = await service.conn.nc.request(
        service.conn.space.subject('memory.memory.save'),
        JSON.stringify({
          ...chat,
          memoryKey: 'bad',
          stepId: 'a',
          mode: 'window',
          messages: [{ role: 'system', content: 'x' }],
        }),
      );
      expect(raw.json()).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
      expect(await rowCount()).toBe(before);
    });

    it('a body over the transport limit', async () => {
      const before = await rowCount();
      const maxPayload = service.conn.nc.info?.max_payload ?? 1024 * 1024;
      const error = await failure(
        memory.save({
          ...chat,
          memoryKey: 'huge',
          stepId: 'a',
          mode: 'window',
          messages: [user('x'.repeat(maxPayload + 1))],
        }),
      );
      expect(error.code).toBe('LIMIT_EXCEEDED');
      expect(error.message).toContain('max_payload');
      expect(await rowCount()).toBe(before);
    });
  });

  it('reads and writes only for callers who may read the flow, asking the registry under the memory scope', async () => {
    await memory.save({
      ...chat,
      memoryKey: 'private',
      stepId: 'a',
      mode: 'window',
      messages: [user('secret')],
    });
    const before = await rowCount();
    const denied = await failure(
      memory.load({ ...chat, actor: outsider, memoryKey: 'private', stepId: 'a' }),
    );
    expect(denied).toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(denied.message).toContain('may not read flow f/team/chat');
    const write = await failure(
      memory.save({
        ...chat,
        actor: outsider,
        memoryKey: 'private',
        stepId: 'a',
        mode: 'window',
        messages: [user('overwrite')],
      }),
    );
    expect(write.code).toBe('PERMISSION_DENIED');
    expect(await rowCount()).toBe(before);
    expect(registry.checks.at(-1)).toEqual({
      actor: outsider,
      workspace: 'main',
      path: 'f/team/chat',
      action: 'read',
      domain: 'memory',
    });
    expect((await memory.load({ ...chat, memoryKey: 'private', stepId: 'a' })).messages).toEqual([
      user('secret'),
    ]);
  });

  it('keeps a memory until it is deleted through the API, one step or all', async () => {
    for (const stepId of ['a', 'b']) {
      await memory.save({
        ...chat,
        memoryKey: 'deletable',
        stepId,
        mode: 'window',
        messages: [user(stepId)],
      });
    }
    const denied = await failure(memory.delete({ ...chat, actor: outsider, memoryKey: 'deletable' }));
    expect(denied.code).toBe('PERMISSION_DENIED');
    expect(await memory.delete({ ...chat, memoryKey: 'deletable', stepId: 'a' })).toMatchObject({
      deleted: 1,
    });
    expect((await memory.load({ ...chat, memoryKey: 'deletable', stepId: 'a' })).version).toBeNull();
    expect((await memory.load({ ...chat, memoryKey: 'deletable', stepId: 'b' })).version).toBe(1);
    expect(await memory.delete({ ...chat, memoryKey: 'deletable' })).toMatchObject({ deleted: 1 });
    expect((await failure(memory.delete({ ...chat, memoryKey: 'deletable' }))).code).toBe('NOT_FOUND');
  });
});
