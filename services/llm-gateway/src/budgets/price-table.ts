/** Nest token of the gateway's `PriceTable`. */
export const PRICE_TABLE = Symbol.for('flowmesh.llm-gateway.PriceTable');

/** US dollars per million tokens. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
}

/**
 * List prices of common models as the vendors published them in 2025; the actual bill is the
 * vendor's. An operator replaces or adds prices with `FLOWMESH_GATEWAY_PRICES`.
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  o3: { input: 2, output: 8 },
  'o4-mini': { input: 1.1, output: 4.4 },
  'claude-3-5-haiku': { input: 0.8, output: 4 },
  'claude-sonnet-4': { input: 3, output: 15 },
  'claude-opus-4': { input: 15, output: 75 },
  'gemini-2.5-pro': { input: 1.25, output: 10 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5 },
};

export interface TokenCounts {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/**
 * Prices per provider and model, for budgets and the `flowmesh.llm.cost_usd` metric. A key is a
 * model (`gpt-4o`) or a provider kind and a model (`azure_openai/gpt-4o`, which wins for that
 * provider); a dated or suffixed name (`gpt-4o-mini-2024-07-18`) takes the price of its longest
 * listed prefix. The operator's entries win over the defaults. A model priced nowhere costs
 * nothing in dollars (its tokens still count).
 */
export class PriceTable {
  private readonly keysLongestFirst: readonly string[];
  private readonly prices: Readonly<Record<string, ModelPrice>>;

  constructor(overrides: Readonly<Record<string, ModelPrice>> = {}) {
    this.prices = { ...DEFAULT_PRICES, ...overrides };
    this.keysLongestFirst = Object.keys(this.prices).sort((a, b) => b.length - a.length);
  }

  priceOf(provider: string | undefined, model: string): ModelPrice | undefined {
    const names = provider ? [`${provider}/${model}`, model] : [model];
    for (const name of names) {
      const key = this.keysLongestFirst.find((known) => name === known || name.startsWith(`${known}-`));
      if (key) return this.prices[key];
    }
    return undefined;
  }

  costUsd(provider: string | undefined, model: string, usage: TokenCounts): number | undefined {
    const price = this.priceOf(provider, model);
    if (!price) return undefined;
    return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
  }
}
