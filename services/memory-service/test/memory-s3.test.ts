import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  createMemoryClient,
  MAX_MEMORY_SIZE_BYTES,
  type ChatMessage,
  type MemoryClient,
} from '@flowmesh/contracts';
import { S3rverInstance, startTestService, waitFor, type TestService } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryServiceDefinition } from '../src/memory-service.definition.js';
import { bytesOf, conversation, user } from './support/chat-fixtures.js';
import { FakeRegistry } from './support/fake-registry.js';

// Agent memory in object storage: a real S3 API (s3rver) on a random port in a temporary directory.
const actor = { token: 'job-token' };
const chat = { actor, workspace: 'main', flowPath: 'f/team/chat' };

describe('memory-service: agent memory in S3', () => {
  let s3: S3rverInstance;
  let service: TestService;
  let registry: FakeRegistry;
  let memory: MemoryClient;
  let objects: S3Client;

  beforeAll(async () => {
    s3 = await S3rverInstance.start();
    service = await startTestService(memoryServiceDefinition, { env: s3.env });
    registry = new FakeRegistry(service.conn, ['main'], {
      'job-token': { workspace: 'main', username: 'alice', read: ['f/team/'], write: ['f/team/'] },
    });
    await registry.start();
    memory = createMemoryClient(service.client);
    objects = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
  });

  afterAll(async () => {
    objects?.destroy();
    registry?.stop();
    await service?.stop();
    await s3?.stop();
  });

  const objectKey = (memoryId: string, stepId: string) => `memory/main/${memoryId}/${stepId}.json`;
  /**
   * The object as JSON. s3rver answers a PUT once it has read the body, before its file is fully
   * written (its filesystem store resolves on the hashing stream's `finish`), so a GET right
   * after can find the file still short under load: read again until it parses whole.
   */
  const readObject = (key: string): Promise<unknown> =>
    waitFor(
      async () => {
        const reply = await objects.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
        return JSON.parse((await reply.Body?.transformToString()) ?? '') as unknown;
      },
      { intervalMs: 25, description: `object ${key} written whole` },
    );
  const objectExists = (key: string) =>
    objects.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key })).then(
      () => true,
      () => false,
    );

  it('keeps a memory as the object memory/{workspace}/{memory id}/{step}.json, with no size limit', async () => {
    const history = conversation(400, 230);
    expect(bytesOf(history)).toBeGreaterThan(MAX_MEMORY_SIZE_BYTES * 2);
    const reply = await memory.save({
      ...chat,
      memoryKey: 'big',
      stepId: 'agent',
      mode: 'compaction',
      messages: history,
    });
    expect(reply).toMatchObject({
      status: 'saved',
      store: 's3',
      fellBack: false,
      limitBytes: null,
      version: 1,
      dropped: null,
    });
    expect(await readObject(objectKey(reply.memoryId, 'agent'))).toEqual(history);

    const loaded = await memory.load({ ...chat, memoryKey: 'big', stepId: 'agent', window: 10 });
    expect(loaded).toMatchObject({ store: 's3', version: 1, capacityBytes: null, totalMessages: 800 });
    expect(loaded.messages).toEqual(history.slice(-10));
  });

  it('replaces the object atomically under concurrent saves, in version order', async () => {
    const first = conversation(30, 40, 'first');
    const second = conversation(50, 40, 'second');
    const initial = await memory.save({
      ...chat,
      memoryKey: 'race',
      stepId: 'a',
      mode: 'window',
      messages: [user('start')],
    });
    for (let round = 0; round < 4; round++) {
      const replies = await Promise.all([
        memory.save({ ...chat, memoryKey: 'race', stepId: 'a', mode: 'window', messages: first }),
        memory.save({ ...chat, memoryKey: 'race', stepId: 'a', mode: 'window', messages: second }),
      ]);
      const base = 1 + round * 2;
      expect(
        replies
          .map((reply) => (reply.status === 'saved' ? reply.replacedVersion : null))
          .sort((a, b) => (a ?? 0) - (b ?? 0)),
      ).toEqual([base, base + 1]);
      const winner = replies.findIndex((reply) => reply.status === 'saved' && reply.version === base + 2);
      const expected = winner === 0 ? first : second;
      expect(await readObject(objectKey(initial.memoryId, 'a'))).toEqual(expected);
      expect(await memory.load({ ...chat, memoryKey: 'race', stepId: 'a' })).toMatchObject({
        version: base + 2,
        messages: expected,
      });
    }
  });

  it('falls back to the database when S3 fails, refuses an oversized compaction there, and returns to S3 once it answers', async () => {
    const saved = await memory.save({
      ...chat,
      memoryKey: 'fallback',
      stepId: 'a',
      mode: 'window',
      messages: conversation(2),
    });
    await s3.pause();
    try {
      const fellBack = await memory.save({
        ...chat,
        memoryKey: 'fallback',
        stepId: 'a',
        mode: 'window',
        messages: conversation(3),
      });
      expect(fellBack).toMatchObject({
        status: 'saved',
        store: 'database',
        fellBack: true,
        version: 2,
        replacedVersion: 1,
      });
      expect(fellBack.notice).toContain('saved to the database instead');
      expect(await memory.load({ ...chat, memoryKey: 'fallback', stepId: 'a' })).toMatchObject({
        store: 'database',
        version: 2,
        messages: conversation(3),
      });

      const oversized: ChatMessage[] = conversation(300, 230);
      const refused = await memory.save({
        ...chat,
        memoryKey: 'fallback',
        stepId: 'a',
        mode: 'compaction',
        messages: oversized,
      });
      expect(refused).toMatchObject({
        status: 'failed',
        currentVersion: 2,
        limitBytes: MAX_MEMORY_SIZE_BYTES,
      });
      expect(refused.notice).toContain('memory save failed');
      expect(await memory.load({ ...chat, memoryKey: 'fallback', stepId: 'a' })).toMatchObject({
        version: 2,
        messages: conversation(3),
      });
    } finally {
      await s3.resume();
    }
    const back = await memory.save({
      ...chat,
      memoryKey: 'fallback',
      stepId: 'a',
      mode: 'window',
      messages: conversation(4),
    });
    expect(back).toMatchObject({ status: 'saved', store: 's3', fellBack: false, version: 3 });
    expect(await memory.load({ ...chat, memoryKey: 'fallback', stepId: 'a' })).toMatchObject({
      store: 's3',
      version: 3,
      messages: conversation(4),
    });
    expect(await readObject(objectKey(saved.memoryId, 'a'))).toEqual(conversation(4));
  });

  it('deletes the objects with the memory', async () => {
    const saved = await memory.save({
      ...chat,
      memoryKey: 'gone',
      stepId: 'a',
      mode: 'window',
      messages: [user('bye')],
    });
    expect(await objectExists(objectKey(saved.memoryId, 'a'))).toBe(true);
    expect(await memory.delete({ ...chat, memoryKey: 'gone' })).toMatchObject({ deleted: 1 });
    expect(await objectExists(objectKey(saved.memoryId, 'a'))).toBe(false);
    expect((await memory.load({ ...chat, memoryKey: 'gone', stepId: 'a' })).version).toBeNull();
  });
});
