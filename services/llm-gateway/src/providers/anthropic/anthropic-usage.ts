import type { ChatUsage } from '@flowmesh/contracts';
import type { AnthropicUsage } from './anthropic-wire.types.js';

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;

/**
 * Anthropic usage, normalized. Its `input_tokens` leaves out the cached tokens, read and written,
 * so they are added back: the normalized input counts every prompt token.
 */
export function normalizeAnthropicUsage(raw: unknown): ChatUsage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const usage = raw as AnthropicUsage;
  if (usage.input_tokens === undefined && usage.output_tokens === undefined) return undefined;
  const cacheRead = count(usage.cache_read_input_tokens);
  const cacheWrite = count(usage.cache_creation_input_tokens);
  const searches = count(usage.server_tool_use?.web_search_requests);
  return {
    inputTokens: count(usage.input_tokens) + cacheRead + cacheWrite,
    outputTokens: count(usage.output_tokens),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: 0,
    ...(searches > 0 ? { webSearches: searches } : {}),
  };
}
