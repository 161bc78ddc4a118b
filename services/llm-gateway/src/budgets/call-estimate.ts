import type { ChatParameters } from '@flowmesh/contracts';

/** An inline image or PDF counts as this many input tokens, whatever its bytes. */
const INLINE_PART_TOKENS = 1_000;
/** A `data` string longer than this is a file's bytes, not text the model reads as such. */
const INLINE_DATA_CHARS = 256;

/**
 * What a call may use before it is made, for its budget reservation: its prompt at about four
 * characters a token (system, messages and tool definitions as sent; inline files at a flat
 * count) and its output cap (`maxOutputTokens`, else `defaultOutputReserve`).
 */
export function estimatedUsage(
  parameters: Pick<ChatParameters, 'system' | 'messages' | 'tools' | 'maxOutputTokens'>,
  defaultOutputReserve: number,
): { inputTokens: number; outputTokens: number } {
  const { system, messages, tools } = parameters;
  let inlineParts = 0;
  const text = JSON.stringify({ system, messages, tools }, (key, value: unknown) => {
    if (key === 'data' && typeof value === 'string' && value.length > INLINE_DATA_CHARS) {
      inlineParts++;
      return '';
    }
    return value;
  });
  return {
    inputTokens: Math.ceil(text.length / 4) + inlineParts * INLINE_PART_TOKENS,
    outputTokens: parameters.maxOutputTokens ?? defaultOutputReserve,
  };
}
