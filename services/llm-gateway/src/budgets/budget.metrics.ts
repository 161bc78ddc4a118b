import type { BudgetScope } from '@flowmesh/contracts';
import { FLOWMESH_METRICS, getMeter, instrumentsOnFirstUse } from '@flowmesh/telemetry';

const instruments = instrumentsOnFirstUse(() => {
  const meter = getMeter('flowmesh.llm-gateway');
  const { llmSpendTokens, llmSpendUsd, llmBudgetRefusals } = FLOWMESH_METRICS;
  return {
    tokens: meter.createCounter(llmSpendTokens.name, {
      unit: llmSpendTokens.unit,
      description: 'Tokens counted against spend budgets, by workspace',
    }),
    usd: meter.createCounter(llmSpendUsd.name, {
      unit: llmSpendUsd.unit,
      description: "US dollars counted against spend budgets (the gateway's price table), by workspace",
    }),
    refusals: meter.createCounter(llmBudgetRefusals.name, {
      unit: llmBudgetRefusals.unit,
      description: 'Model calls refused because a spend budget was spent, by workspace and budget scope',
    }),
  };
});

export function recordSpend(workspace: string, tokens: number, usd: number): void {
  const { tokens: tokenCounter, usd: usdCounter } = instruments();
  tokenCounter.add(tokens, { workspace });
  usdCounter.add(usd, { workspace });
}

export function recordBudgetRefusal(workspace: string, scope: BudgetScope): void {
  instruments().refusals.add(1, { workspace, scope });
}
