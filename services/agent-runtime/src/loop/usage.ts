import type { ChatUsage } from '@flowmesh/contracts';

/** Tokens a step spent, over all its model calls (summaries included). */
export interface TotalUsage {
  inputTokens: number;
  outputTokens: number;
  /** Absent in checkpoints parked before they were counted: read as 0. */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

export function addUsage(total: TotalUsage, usage: ChatUsage | undefined): void {
  if (!usage) return;
  total.inputTokens += usage.inputTokens ?? 0;
  total.outputTokens += usage.outputTokens ?? 0;
  total.cacheReadTokens = (total.cacheReadTokens ?? 0) + (usage.cacheReadTokens ?? 0);
  total.cacheWriteTokens = (total.cacheWriteTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
}

/**
 * The `usage` a step's result carries, as Windmill's `TokenUsage` names it: the cache fields are
 * left out when no model call of the step read or wrote a cache.
 */
export interface StepUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cache_read_input_tokens?: number;
  cache_write_input_tokens?: number;
}

export function stepUsage(usage: Partial<TotalUsage> | undefined): StepUsage {
  const input = usage?.inputTokens ?? 0;
  const output = usage?.outputTokens ?? 0;
  const cacheRead = usage?.cacheReadTokens ?? 0;
  const cacheWrite = usage?.cacheWriteTokens ?? 0;
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: input + output,
    ...(cacheRead > 0 ? { cache_read_input_tokens: cacheRead } : {}),
    ...(cacheWrite > 0 ? { cache_write_input_tokens: cacheWrite } : {}),
  };
}
