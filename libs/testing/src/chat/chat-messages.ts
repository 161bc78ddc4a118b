import type { ChatMessage } from '@flowmesh/contracts';

/** Messages of a history, for tests that cut, measure or summarize one. */
export const userSays = (text: string): ChatMessage => ({ role: 'user', content: [{ type: 'text', text }] });

export const assistantSays = (text: string): ChatMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
});

/** An assistant turn that only calls tool `name` (call `id`). */
export const assistantCalls = (id: string, name = 't', args = '{}'): ChatMessage => ({
  role: 'assistant',
  content: [],
  toolCalls: [{ id, name, arguments: args }],
});

export const toolResult = (id: string, text: string, name = 't'): ChatMessage => ({
  role: 'tool',
  toolCallId: id,
  name,
  content: [{ type: 'text', text }],
});
