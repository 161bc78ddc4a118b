/** The window a model is planned against when neither the table nor the step names one. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/**
 * Context windows (tokens) of the models we know, by id prefix: the longest prefix that matches
 * wins, so `gpt-4o-mini-2024-07-18` reads `gpt-4o-mini`. A provider's path or region prefix
 * (`openai/`, `us.anthropic.`) is ignored. Update it when a provider ships a new family.
 */
const MODEL_CONTEXT_WINDOWS: ReadonlyArray<readonly [prefix: string, tokens: number]> = [
  ['gpt-5', 400_000],
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-4-turbo', 128_000],
  ['gpt-4', 8_192],
  ['gpt-3.5-turbo', 16_385],
  ['o1-mini', 128_000],
  ['o1', 200_000],
  ['o3', 200_000],
  ['o4-mini', 200_000],
  ['claude', 200_000],
  ['gemini-1.5', 1_048_576],
  ['gemini-2', 1_048_576],
  ['gemini-3', 1_048_576],
  ['mistral-large', 128_000],
  ['mistral-medium', 128_000],
  ['mistral-small', 128_000],
  ['codestral', 256_000],
  ['deepseek', 128_000],
  ['llama-3', 128_000],
  ['meta.llama3', 128_000],
  ['amazon.nova-pro', 300_000],
  ['amazon.nova-lite', 300_000],
  ['amazon.nova-micro', 128_000],
];

/**
 * The most a model answers in one call (tokens), by id prefix as above: a summary asks for its
 * reserve, and a cap the model refuses would fail every summary (gpt-4o answers at most 16 384,
 * Claude 3.5 Haiku 8 192). Models not listed are asked for the whole reserve.
 */
const MODEL_OUTPUT_LIMITS: ReadonlyArray<readonly [prefix: string, tokens: number]> = [
  ['gpt-5', 128_000],
  ['gpt-4.1', 32_768],
  ['gpt-4o', 16_384],
  ['gpt-4-turbo', 4_096],
  ['gpt-4', 8_192],
  ['gpt-3.5-turbo', 4_096],
  ['o1-mini', 65_536],
  ['o1', 100_000],
  ['o3', 100_000],
  ['o4-mini', 100_000],
  ['claude-3-haiku', 4_096],
  ['claude-3-opus', 4_096],
  ['claude-3-sonnet', 4_096],
  ['claude-3-5', 8_192],
  ['claude-3-7', 64_000],
  ['claude-sonnet-4', 64_000],
  ['claude-opus-4', 32_000],
  ['claude-haiku-4', 64_000],
  ['gemini-1.5', 8_192],
  ['gemini-2.0', 8_192],
  ['gemini-2.5', 65_536],
  ['gemini-3', 65_536],
  ['deepseek', 8_192],
  ['amazon.nova', 5_000],
];

/** The step's `context_window` when set, else the model's from the table, else 128 000. */
export function contextWindowOf(model: string, override?: number): number {
  if (override !== undefined && override > 0) return override;
  return byModelPrefix(MODEL_CONTEXT_WINDOWS, model) ?? DEFAULT_CONTEXT_WINDOW;
}

/** The most the model answers in one call, when the table knows it. */
export function outputLimitOf(model: string): number | undefined {
  return byModelPrefix(MODEL_OUTPUT_LIMITS, model);
}

function byModelPrefix(table: ReadonlyArray<readonly [string, number]>, model: string): number | undefined {
  const id = model
    .toLowerCase()
    .replace(/^[\w-]+\//, '')
    .replace(/^(us|eu|apac|global)\./, '')
    .replace(/^anthropic\./, '');
  let best: readonly [string, number] | undefined;
  for (const entry of table)
    if (id.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  return best?.[1];
}
