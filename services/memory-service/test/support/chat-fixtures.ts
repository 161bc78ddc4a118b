import type { ChatMessage } from '@flowmesh/contracts';

/** Builders of provider-neutral messages for memory tests. */
export const user = (text: string): ChatMessage => ({ role: 'user', content: [{ type: 'text', text }] });
export const answer = (text: string): ChatMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
});
export const toolCall = (...ids: string[]): ChatMessage => ({
  role: 'assistant',
  content: [{ type: 'reasoning', text: 'look it up', signature: 'sig-1' }],
  toolCalls: ids.map((id) => ({ id, name: 'get_weather', arguments: `{"city":"${id}"}` })),
});
export const toolResult = (id: string, text = `weather of ${id}`): ChatMessage => ({
  role: 'tool',
  toolCallId: id,
  name: 'get_weather',
  content: [{ type: 'text', text }],
});

/** `exchanges` user/assistant exchanges whose texts are `size` characters each. */
export function conversation(exchanges: number, size = 20, tag = 'm'): ChatMessage[] {
  return Array.from({ length: exchanges }, (_, i) => [
    user(`${tag}${i} q `.padEnd(size, 'q')),
    answer(`${tag}${i} a `.padEnd(size, 'a')),
  ]).flat();
}

export const bytesOf = (messages: readonly ChatMessage[]): number =>
  Buffer.byteLength(JSON.stringify(messages));
