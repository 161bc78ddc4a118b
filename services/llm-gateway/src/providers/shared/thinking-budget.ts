import type { ReasoningEffort } from '@flowmesh/contracts';

/** Anthropic's smallest accepted `budget_tokens`. */
export const MIN_THINKING_BUDGET = 1024;

const BUDGETS: Record<Exclude<ReasoningEffort, 'none'>, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
};

/**
 * The thinking budget for an effort, fitted under the output limit (Claude counts thinking in
 * `max_tokens`, so the caller's limit is kept and the budget shrinks instead). Undefined: no
 * thinking (effort `none`, no effort, or a limit too small to think in).
 */
export function thinkingBudget(effort: ReasoningEffort | undefined, maxTokens: number): number | undefined {
  if (effort === undefined || effort === 'none') return undefined;
  const budget = Math.min(BUDGETS[effort], maxTokens - MIN_THINKING_BUDGET);
  return budget >= MIN_THINKING_BUDGET ? budget : undefined;
}

/** The budget an effort asks for before any fitting (0 for none). */
export function effortBudget(effort: ReasoningEffort | undefined): number {
  return effort === undefined || effort === 'none' ? 0 : BUDGETS[effort];
}
