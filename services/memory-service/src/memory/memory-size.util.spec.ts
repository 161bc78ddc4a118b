import type { ChatMessage } from '@flowmesh/contracts';
import { assistantCalls, assistantSays, toolResult as result, userSays } from '@flowmesh/testing';
import { describe, expect, it } from 'vitest';
import { largestFittingSuffix, serializeHistory } from './memory-size.util.js';

const user = userSays;
const answer = assistantSays;
const call = (id: string) => assistantCalls(id);

const bytesOf = (messages: ChatMessage[]) => Buffer.byteLength(JSON.stringify(messages));

describe('serializeHistory', () => {
  it('measures the stored JSON in UTF-8 bytes, not characters', () => {
    const history = [user('héllo 👋')];
    const { json, bytes } = serializeHistory(history);
    expect(json).toBe(JSON.stringify(history));
    expect(bytes).toBe(Buffer.byteLength(json));
    expect(bytes).toBeGreaterThan(json.length);
  });
});

describe('largestFittingSuffix', () => {
  const history: ChatMessage[] = [
    { role: 'summary', text: 'earlier: the user asked about invoices' },
    user('q1'),
    call('a'),
    result('a', 'x'.repeat(300)),
    answer('r1'),
    user('q2'),
    answer('r2'),
    user('q3'),
    call('b'),
    result('b', 'y'.repeat(50)),
    answer('r3'),
  ];

  it('keeps everything from the first user message when that fits', () => {
    const suffix = largestFittingSuffix(history, bytesOf(history.slice(1)));
    expect(suffix).toMatchObject({ start: 1, bytes: bytesOf(history.slice(1)), droppedExchanges: 1 });
  });

  it('keeps the largest suffix of whole exchanges starting with a user message that fits', () => {
    const limit = bytesOf(history.slice(5)) + 10; // too small for q1's exchange with its long result
    const suffix = largestFittingSuffix(history, limit);
    expect(suffix).toEqual({
      start: 5,
      bytes: bytesOf(history.slice(5)),
      droppedExchanges: 2,
      droppedBytes: bytesOf(history) - bytesOf(history.slice(5)),
    });
  });

  it('measures exactly: a limit one byte short moves to the next exchange', () => {
    const exact = bytesOf(history.slice(5));
    expect(largestFittingSuffix(history, exact)?.start).toBe(5);
    expect(largestFittingSuffix(history, exact - 1)?.start).toBe(7);
  });

  it('never starts inside an exchange, even when a later message alone would fit', () => {
    const limit = bytesOf(history.slice(7)) - 1; // [answer r3] alone would fit, but it starts no exchange
    expect(largestFittingSuffix(history, limit)).toBeUndefined();
  });

  it('finds nothing in a history without a user message', () => {
    expect(largestFittingSuffix([answer('a'), answer('b')], 10_000)).toBeUndefined();
  });
});
