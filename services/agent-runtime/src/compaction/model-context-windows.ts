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
  ['anthropic.claude', 200_000],
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

/** The step's `context_window` when set, else the model's from the table, else 128 000. */
export function contextWindowOf(model: string, override?: number): number {
  if (override !== undefined && override > 0) return override;
  const id = model
    .toLowerCase()
    .replace(/^[\w-]+\//, '')
    .replace(/^(us|eu|apac|global)\./, '');
  let best: readonly [string, number] | undefined;
  for (const entry of MODEL_CONTEXT_WINDOWS)
    if (id.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  return best?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}
