import type { ChatUsage } from '@flowmesh/contracts';

/** Tokens a step spent, over all its model calls (summaries included). */
export interface TotalUsage {
  inputTokens: number;
  outputTokens: number;
}

export function addUsage(total: TotalUsage, usage: ChatUsage | undefined): void {
  if (!usage) return;
  total.inputTokens += usage.inputTokens ?? 0;
  total.outputTokens += usage.outputTokens ?? 0;
}
