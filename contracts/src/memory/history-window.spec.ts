import { ChatHistorySchema, type ChatMessage } from '../ai/chat-message.schema.js';
import { describe, expect, it } from 'vitest';
import { lastMessagesWindow } from './history-window.js';

const user = (text: string): ChatMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const answer = (text: string): ChatMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });
const calls = (...ids: string[]): ChatMessage => ({
  role: 'assistant',
  content: [],
  toolCalls: ids.map((id) => ({ id, name: 'lookup', arguments: '{}' })),
});
const result = (id: string): ChatMessage => ({
  role: 'tool',
  toolCallId: id,
  name: 'lookup',
  content: [{ type: 'text', text: id }],
});

// user, calls(a,b), a, b, answer, user, calls(c), c, answer
const history = [
  user('q1'),
  calls('a', 'b'),
  result('a'),
  result('b'),
  answer('r1'),
  user('q2'),
  calls('c'),
  result('c'),
  answer('r2'),
];

describe('lastMessagesWindow', () => {
  it('returns the whole history when it is no longer than the window', () => {
    expect(lastMessagesWindow(history, 9)).toEqual(history);
    expect(lastMessagesWindow(history, 50)).toEqual(history);
  });

  it('returns exactly the last N messages when the cut falls between rounds', () => {
    expect(lastMessagesWindow(history, 4)).toEqual(history.slice(5));
    expect(lastMessagesWindow(history, 5)).toEqual(history.slice(4));
  });

  it('never starts with a tool result whose call was cut off', () => {
    // The last 2 would be [result c, answer]: the result's call is outside, so it goes too.
    expect(lastMessagesWindow(history, 2)).toEqual([answer('r2')]);
    // The last 6 would start at result b (call outside): start at the answer after it.
    expect(lastMessagesWindow(history, 6)).toEqual(history.slice(4));
    expect(lastMessagesWindow(history, 7)).toEqual(history.slice(2).slice(2));
  });

  it('keeps every window a replayable history for every size', () => {
    for (let size = 1; size <= history.length; size++) {
      const window = lastMessagesWindow(history, size);
      expect(window.length).toBeLessThanOrEqual(size);
      expect(window[0]?.role).not.toBe('tool');
      expect(ChatHistorySchema.safeParse(window).success).toBe(true);
    }
  });
});
