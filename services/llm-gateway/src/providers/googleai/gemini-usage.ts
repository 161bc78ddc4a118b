import type { ChatUsage } from '@flowmesh/contracts';
import type { GeminiUsageMetadata } from './gemini-wire.types.js';

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;

/**
 * Gemini `usageMetadata`, normalized. `promptTokenCount` already holds the cached tokens
 * (`cachedContentTokenCount` is a part of it); thinking is billed as output but counted apart
 * (`thoughtsTokenCount`), so it is added to the output.
 */
export function normalizeGeminiUsage(raw: unknown): ChatUsage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const usage = raw as GeminiUsageMetadata;
  if (usage.promptTokenCount === undefined && usage.candidatesTokenCount === undefined) return undefined;
  const thoughts = count(usage.thoughtsTokenCount);
  return {
    inputTokens: count(usage.promptTokenCount) + count(usage.toolUsePromptTokenCount),
    outputTokens: count(usage.candidatesTokenCount) + thoughts,
    cacheReadTokens: count(usage.cachedContentTokenCount),
    cacheWriteTokens: 0,
    reasoningTokens: thoughts,
  };
}
