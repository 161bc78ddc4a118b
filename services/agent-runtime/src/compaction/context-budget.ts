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
 * Tokens estimated from the JSON's UTF-8 size, a token per 4 bytes. Only schedules compaction: no
 * model call is refused on it, and the provider's own count replaces it after each answer.
 */
export function estimateTokens(value: unknown): number {
  return Math.ceil(Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8') / 4);
}
