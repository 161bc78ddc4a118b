import type { ChatUsage } from '@flowmesh/contracts';

interface BedrockTokenUsage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;

/**
 * Bedrock `TokenUsage`, normalized. Like Anthropic's, its `inputTokens` leaves out the tokens read
 * from and written to the prompt cache (`totalTokens` is the sum of all four), so they are added back.
 */
export function normalizeBedrockUsage(raw: unknown): ChatUsage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const usage = raw as BedrockTokenUsage;
  if (usage.inputTokens === undefined && usage.outputTokens === undefined) return undefined;
  const cacheRead = count(usage.cacheReadInputTokens);
  const cacheWrite = count(usage.cacheWriteInputTokens);
  return {
    inputTokens: count(usage.inputTokens) + cacheRead + cacheWrite,
    outputTokens: count(usage.outputTokens),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: 0,
  };
}
