import type { ChatMessage } from '@flowmesh/contracts';
import { estimateMessages } from './context-budget.js';

/**
 * The context cut into the pieces compaction keeps or summarizes whole: a user message with the
 * first answer to it (and that answer's tool results), each later assistant round with its tool
 * results, and an earlier summary on its own. So a prompt stays with its first response, a call
 * is never parted from its results, and later tool rounds of one turn can still be summarized.
 */
export function exchangesOf(messages: readonly ChatMessage[]): ChatMessage[][] {
  const exchanges: ChatMessage[][] = [];
  let current: ChatMessage[] | undefined;
  /** The current exchange opened on a user message and has no answer yet. */
  let awaitingAnswer = false;
  for (const message of messages) {
    const opensExchange =
      message.role === 'summary' ||
      message.role === 'user' ||
      (message.role === 'assistant' && !awaitingAnswer) ||
      current === undefined;
    if (opensExchange) {
      current = [message];
      exchanges.push(current);
      awaitingAnswer = message.role === 'user';
    } else {
      current?.push(message);
      if (message.role === 'assistant') awaitingAnswer = false;
    }
  }
  return exchanges;
}

/**
 * Where the kept part starts: the newest exchange always, then older ones while all kept fit
 * `retainTokens` (0: the newest alone).
 */
export function keptFrom(exchanges: readonly ChatMessage[][], retainTokens: number): number {
  let start = exchanges.length - 1;
  if (start <= 0) return Math.max(start, 0);
  let kept = estimateMessages(exchanges[start] ?? []);
  while (start > 0) {
    const older = estimateMessages(exchanges[start - 1] ?? []);
    if (kept + older > retainTokens) break;
    kept += older;
    start--;
  }
  return start;
}
