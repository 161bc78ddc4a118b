import type { AttachmentPart, ChatMessage } from '@flowmesh/contracts';

/** How a context window is shared out, in estimated tokens. */
export interface ContextBudget {
  readonly window: number;
  /** Held back for the answer (and for a summary): the larger of 20 % of the window and the step's output cap. */
  readonly reserve: number;
  /** What the prompt may take: the window less the reserve. Reaching it compacts. */
  readonly input: number;
  /** Recent complete exchanges a summary leaves as they are: 20 000, at most half the input budget. */
  readonly retain: number;
}

export function contextBudget(window: number, maxOutputTokens?: number): ContextBudget {
  const reserve = Math.max(Math.ceil(window * 0.2), maxOutputTokens ?? 0);
  const input = Math.max(window - reserve, 0);
  return { window, reserve, input, retain: Math.min(20_000, Math.floor(input / 2)) };
}

/**
 * What an attachment (an object-storage descriptor: an image, a PDF) is counted as in a projection.
 * Its descriptor is a few dozen bytes but the provider reads the file: about what one large image
 * costs (Anthropic caps an image near 1 600 tokens, OpenAI's high-detail tile grid is in the same
 * range). A PDF of many pages costs more; the provider's measured count replaces the estimate after
 * the next answer, and a refusal for size still recovers through a summary.
 */
export const ATTACHMENT_TOKENS = 1_600;

/**
 * Tokens estimated from the JSON's UTF-8 size, a token per 4 bytes. Only schedules compaction: no
 * model call is refused on it, and the provider's own count replaces it after each answer.
 */
export function estimateTokens(value: unknown): number {
  return Math.ceil(Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8') / 4);
}

/** The attachment parts of user messages and tool results (each counted at `ATTACHMENT_TOKENS`). */
export function attachmentPartsOf(messages: readonly ChatMessage[]): AttachmentPart[] {
  const parts: AttachmentPart[] = [];
  for (const message of messages)
    if (message.role === 'user' || message.role === 'tool')
      for (const part of message.content) if (part.type === 'attachment') parts.push(part);
  return parts;
}

/** Messages estimated as sent: a token per 4 bytes of JSON, each attachment at its nominal allowance. */
export function estimateMessages(messages: readonly ChatMessage[]): number {
  return estimateTokens(messages) + ATTACHMENT_TOKENS * attachmentPartsOf(messages).length;
}
