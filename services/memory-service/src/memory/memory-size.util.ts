import type { ChatMessage } from '@flowmesh/contracts';

/** A memory as it is stored: its JSON text and that text's size in UTF-8 bytes. */
export interface SerializedHistory {
  readonly json: string;
  readonly bytes: number;
}

export function serializeHistory(messages: readonly ChatMessage[]): SerializedHistory {
  const json = JSON.stringify(messages);
  return { json, bytes: Buffer.byteLength(json, 'utf8') };
}

export interface HistorySuffix {
  /** Index of the first message kept. */
  readonly start: number;
  /** Serialized size of the kept messages. */
  readonly bytes: number;
  /** Exchanges left out before `start` (a leading summary or assistant message counts as one). */
  readonly droppedExchanges: number;
  readonly droppedBytes: number;
}

/** Bytes of a JSON array `[a,b,c]` whose items take `contentBytes` together. */
const arrayBytes = (contentBytes: number, count: number): number =>
  count === 0 ? 2 : 2 + contentBytes + count - 1;

/**
 * The largest suffix of complete exchanges that starts with a user message and serializes to at
 * most `limitBytes`, or undefined when not even the last one does. An exchange starts at a user
 * message, so such a suffix never splits a tool call from its results.
 */
export function largestFittingSuffix(
  messages: readonly ChatMessage[],
  limitBytes: number,
): HistorySuffix | undefined {
  const sizes = messages.map((message) => Buffer.byteLength(JSON.stringify(message), 'utf8'));
  let remaining = sizes.reduce((sum, size) => sum + size, 0);
  const total = arrayBytes(remaining, messages.length);
  let exchangesBefore = 0;
  // A suffix only shrinks as its start moves right, so the first user start that fits is the largest.
  for (let start = 0; start < messages.length; start++) {
    const startsExchange = messages[start]?.role === 'user';
    if (startsExchange) {
      const bytes = arrayBytes(remaining, messages.length - start);
      if (bytes <= limitBytes)
        return { start, bytes, droppedExchanges: exchangesBefore, droppedBytes: total - bytes };
    }
    if (startsExchange || start === 0) exchangesBefore++;
    remaining -= sizes[start] ?? 0;
  }
  return undefined;
}
