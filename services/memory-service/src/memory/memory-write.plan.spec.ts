import type { ChatMessage } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { serializeHistory } from './memory-size.util.js';
import { planMemoryWrite, type MemoryWriteInput } from './memory-write.plan.js';

const user = (text: string): ChatMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const answer = (text: string): ChatMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });
const history = [user('a'.repeat(400)), answer('b'.repeat(400)), user('c'), answer('d')];
const full = serializeHistory(history);
const lastExchange = serializeHistory(history.slice(2));

const input = (overrides: Partial<MemoryWriteInput>): MemoryWriteInput => ({
  messages: history,
  serialized: full,
  limitBytes: 100_000,
  mode: 'window',
  compacted: false,
  fallback: false,
  ...overrides,
});

describe('planMemoryWrite', () => {
  it('writes a memory that fits, and any memory when the store reports no limit', () => {
    expect(planMemoryWrite(input({}))).toEqual({
      kind: 'write',
      messageCount: 4,
      serialized: full,
      dropped: null,
    });
    expect(planMemoryWrite(input({ limitBytes: null, mode: 'compaction', fallback: true }))).toMatchObject({
      kind: 'write',
    });
    expect(planMemoryWrite(input({ limitBytes: full.bytes }))).toMatchObject({
      kind: 'write',
      dropped: null,
    });
  });

  it('asks a compaction memory over the limit to compact once', () => {
    expect(planMemoryWrite(input({ mode: 'compaction', limitBytes: full.bytes - 1 }))).toEqual({
      kind: 'compaction_required',
      limitBytes: full.bytes - 1,
    });
  });

  it('keeps the largest fitting suffix once compacted, and for a window memory at once', () => {
    for (const over of [input({ mode: 'compaction', compacted: true }), input({ mode: 'window' })]) {
      const plan = planMemoryWrite({ ...over, limitBytes: lastExchange.bytes + 5 });
      expect(plan).toEqual({
        kind: 'write',
        messageCount: 2,
        serialized: lastExchange,
        dropped: { messages: 2, exchanges: 1, bytes: full.bytes - lastExchange.bytes },
      });
    }
  });

  it('skips the write when not even the last exchange fits', () => {
    expect(planMemoryWrite(input({ limitBytes: lastExchange.bytes - 1 }))).toEqual({
      kind: 'skip',
      limitBytes: lastExchange.bytes - 1,
    });
  });

  it('refuses an oversized compaction memory in the database fallback, compacted or not', () => {
    for (const compacted of [false, true]) {
      expect(
        planMemoryWrite(input({ mode: 'compaction', compacted, fallback: true, limitBytes: 100 })),
      ).toEqual({
        kind: 'refuse',
        limitBytes: 100,
      });
    }
    // A window memory in the fallback follows the ordinary rules.
    expect(planMemoryWrite(input({ fallback: true, limitBytes: lastExchange.bytes }))).toMatchObject({
      kind: 'write',
      messageCount: 2,
    });
  });
});
