import type { ChatUsage } from '@flowmesh/contracts';
import type { OpenAIUsage } from './openai-wire.types.js';

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;

/**
 * OpenAI-shaped usage, normalized. `prompt_tokens` already includes cached tokens (OpenAI's
 * `cached_tokens`, DeepSeek's `prompt_cache_hit_tokens`), and `completion_tokens` includes reasoning.
 */
export function normalizeOpenAIUsage(raw: unknown): ChatUsage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const usage = raw as OpenAIUsage;
  if (usage.prompt_tokens === undefined && usage.completion_tokens === undefined) return undefined;
  return {
    inputTokens: count(usage.prompt_tokens),
    outputTokens: count(usage.completion_tokens),
    // DeepSeek reports hits as `prompt_cache_hit_tokens` and may send `cached_tokens: 0` beside it.
    cacheReadTokens: Math.max(
      count(usage.prompt_tokens_details?.cached_tokens),
      count(usage.prompt_cache_hit_tokens),
    ),
    cacheWriteTokens: count(usage.prompt_tokens_details?.cache_write_tokens),
    reasoningTokens: count(usage.completion_tokens_details?.reasoning_tokens),
  };
}
