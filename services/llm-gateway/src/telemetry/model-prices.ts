/**
 * List prices in US dollars per million tokens (input, output) of common models, for the
 * `flowmesh.llm.cost_usd` estimate. A model not listed has no cost series (its tokens are still
 * counted). A dated or suffixed name (`gpt-4o-mini-2024-07-18`) takes the price of the longest
 * listed prefix. Prices as published by the vendors in 2025; the actual bill is the vendor's.
 */
const PRICES_PER_MILLION: Readonly<Record<string, readonly [input: number, output: number]>> = {
  'gpt-4o': [2.5, 10],
  'gpt-4o-mini': [0.15, 0.6],
  'gpt-4.1': [2, 8],
  'gpt-4.1-mini': [0.4, 1.6],
  'gpt-4.1-nano': [0.1, 0.4],
  o3: [2, 8],
  'o4-mini': [1.1, 4.4],
  'claude-3-5-haiku': [0.8, 4],
  'claude-sonnet-4': [3, 15],
  'claude-opus-4': [15, 75],
  'gemini-2.5-pro': [1.25, 10],
  'gemini-2.5-flash': [0.3, 2.5],
};

const NAMES_LONGEST_FIRST = Object.keys(PRICES_PER_MILLION).sort((a, b) => b.length - a.length);

export function costUsd(
  model: string,
  usage: { readonly inputTokens: number; readonly outputTokens: number },
): number | undefined {
  const name = NAMES_LONGEST_FIRST.find((known) => model === known || model.startsWith(`${known}-`));
  const price = name ? PRICES_PER_MILLION[name] : undefined;
  if (!price) return undefined;
  return (usage.inputTokens * price[0] + usage.outputTokens * price[1]) / 1_000_000;
}
