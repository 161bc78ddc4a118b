import type { ChatMessage } from '../ai/chat-message.schema.js';

/**
 * The window a `window` memory replays (memory-service's `load`, agent-runtime over a full load).
 * The last `size` messages of a history, never starting inside a tool round: when the cut falls
 * between an assistant's tool calls and their results, the orphaned results are left out too, so
 * the window holds at most `size` messages and every tool result in it follows its call.
 */
export function lastMessagesWindow(messages: readonly ChatMessage[], size: number): ChatMessage[] {
  if (messages.length <= size) return [...messages];
  let start = messages.length - size;
  while (start < messages.length && messages[start]?.role === 'tool') start++;
  return messages.slice(start);
}
