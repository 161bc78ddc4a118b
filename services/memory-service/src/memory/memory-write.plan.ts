import type { ChatMessage, MemoryMode } from '@flowmesh/contracts';
import { largestFittingSuffix, serializeHistory, type SerializedHistory } from './memory-size.util.js';

export interface MemoryWriteInput {
  readonly messages: readonly ChatMessage[];
  readonly serialized: SerializedHistory;
  /** The store's capacity; null when nothing bounds it. */
  readonly limitBytes: number | null;
  readonly mode: MemoryMode;
  /** The caller already compacted once for size. */
  readonly compacted: boolean;
  /** This write goes to the database because object storage failed. */
  readonly fallback: boolean;
}

export interface DroppedPrefix {
  readonly messages: number;
  readonly exchanges: number;
  readonly bytes: number;
}

export type MemoryWritePlan =
  | {
      readonly kind: 'write';
      readonly messageCount: number;
      readonly serialized: SerializedHistory;
      readonly dropped: DroppedPrefix | null;
    }
  | { readonly kind: 'compaction_required'; readonly limitBytes: number }
  | { readonly kind: 'skip'; readonly limitBytes: number }
  | { readonly kind: 'refuse'; readonly limitBytes: number };

/**
 * What a save writes, by the persistence rules of agent memory: a memory that fits is written
 * whole; over the limit, a compaction memory asks its caller to compact once; still over (or a
 * window memory, which cannot compact), the largest suffix of complete exchanges that fits and
 * starts with a user message is kept; when none fits nothing is written. In the database fallback
 * after object storage failed, an oversized compaction memory is refused outright.
 */
export function planMemoryWrite(input: MemoryWriteInput): MemoryWritePlan {
  const { messages, serialized, limitBytes } = input;
  if (limitBytes === null || serialized.bytes <= limitBytes) {
    return { kind: 'write', messageCount: messages.length, serialized, dropped: null };
  }
  if (input.mode === 'compaction') {
    if (input.fallback) return { kind: 'refuse', limitBytes };
    if (!input.compacted) return { kind: 'compaction_required', limitBytes };
  }
  const suffix = largestFittingSuffix(messages, limitBytes);
  if (!suffix) return { kind: 'skip', limitBytes };
  const kept = messages.slice(suffix.start);
  return {
    kind: 'write',
    messageCount: kept.length,
    serialized: serializeHistory(kept),
    dropped: { messages: suffix.start, exchanges: suffix.droppedExchanges, bytes: suffix.droppedBytes },
  };
}
