import { DEFAULT_CONTEXT_WINDOW, type ContextWindowReply } from '@flowmesh/contracts';

/**
 * Context windows (input plus output tokens) of the models the gateway knows, in one place.
 * Keys are model ids or id prefixes; the longest matching prefix wins, so `gpt-4o-mini-2024-07-18`
 * finds `gpt-4o-mini`. An unknown model gets `DEFAULT_CONTEXT_WINDOW` (128000), and a caller
 * overrides per call for a custom deployment. Agent compaction plans against these numbers.
 */
export const MODEL_CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  // OpenAI
  'gpt-3.5-turbo': 16_385,
  'gpt-4': 8_192,
  'gpt-4-turbo': 128_000,
  'gpt-4o': 128_000,
  'gpt-4o-mini': 128_000,
  'gpt-4.1': 1_047_576,
  'gpt-4.1-mini': 1_047_576,
  'gpt-4.1-nano': 1_047_576,
  'gpt-5': 400_000,
  'gpt-5-mini': 400_000,
  'gpt-5-nano': 400_000,
  'gpt-5-chat': 128_000,
  'gpt-5.1': 400_000,
  'gpt-5.2': 400_000,
  'gpt-oss-20b': 131_072,
  'gpt-oss-120b': 131_072,
  o1: 200_000,
  'o1-mini': 128_000,
  o3: 200_000,
  'o3-mini': 200_000,
  'o3-pro': 200_000,
  'o4-mini': 200_000,
  // Anthropic
  'claude-3-haiku': 200_000,
  'claude-3-opus': 200_000,
  'claude-3-5-haiku': 200_000,
  'claude-3-5-sonnet': 200_000,
  'claude-3-7-sonnet': 200_000,
  'claude-haiku-4': 200_000,
  'claude-sonnet-4': 200_000,
  'claude-opus-4': 200_000,
  // Google
  'gemini-1.5-flash': 1_048_576,
  'gemini-1.5-pro': 2_097_152,
  'gemini-2.0-flash': 1_048_576,
  'gemini-2.5-flash': 1_048_576,
  'gemini-2.5-pro': 1_048_576,
  'gemini-3': 1_048_576,
  // Mistral
  'mistral-large': 131_072,
  'mistral-medium': 131_072,
  'mistral-small': 131_072,
  'magistral-medium': 131_072,
  'magistral-small': 131_072,
  'ministral-3b': 131_072,
  'ministral-8b': 131_072,
  'pixtral-large': 131_072,
  'open-mistral-nemo': 131_072,
  codestral: 256_000,
  devstral: 131_072,
  // DeepSeek
  'deepseek-chat': 128_000,
  'deepseek-reasoner': 128_000,
  // Meta on Groq, Together, Bedrock
  'llama-3.1-8b-instant': 131_072,
  'llama-3.3-70b-versatile': 131_072,
  'meta-llama/llama-4': 131_072,
  // Amazon
  'amazon.nova-micro': 128_000,
  'amazon.nova-lite': 300_000,
  'amazon.nova-pro': 300_000,
  'amazon.nova-premier': 1_000_000,
};

/** Models that take a 1M-token window when the resource sets `enable_1m_context`. */
const ONE_MILLION_CAPABLE = ['claude-sonnet-4'];

/**
 * The id as the table spells it: Bedrock's `anthropic.`/`us.anthropic.` prefixes, OpenRouter's
 * `openai/`, Vertex's `@20250929` and Bedrock's `-v1:0` suffixes go; dated suffixes stay (the
 * prefix match ignores them).
 */
export function tableModelId(model: string): string {
  let id = model.trim().toLowerCase();
  id = id.replace(/^arn:aws:bedrock:[^/]+\/(.+)$/, '$1');
  id = id.replace(/^(us|eu|apac|global)\./, '');
  id = id.replace(/^(anthropic|meta|mistral|cohere|deepseek|openai)\./, '');
  id = id.replace(/@.*$/, '').replace(/-v\d+(:\d+)?$/, '');
  const slash = id.lastIndexOf('/');
  if (slash >= 0 && !(id.slice(0, slash) in MODEL_CONTEXT_WINDOWS) && !id.startsWith('meta-llama/')) {
    id = id.slice(slash + 1);
  }
  return id;
}

const KEYS_LONGEST_FIRST = Object.keys(MODEL_CONTEXT_WINDOWS).sort((a, b) => b.length - a.length);

/** The table's window for a model, undefined when it does not know it. */
export function knownContextWindow(
  model: string,
  options: { enable1mContext?: boolean } = {},
): number | undefined {
  const id = tableModelId(model);
  const key = KEYS_LONGEST_FIRST.find(
    (candidate) =>
      id === candidate ||
      id.startsWith(`${candidate}-`) ||
      id.startsWith(`${candidate}.`) ||
      id.startsWith(`${candidate}:`),
  );
  if (key === undefined) return undefined;
  if (options.enable1mContext && ONE_MILLION_CAPABLE.some((prefix) => id.startsWith(prefix)))
    return 1_000_000;
  return MODEL_CONTEXT_WINDOWS[key];
}

/** The window a call plans against: the override, else the table, else 128000. */
export function contextWindowOf(
  model: string,
  override?: number,
  options: { enable1mContext?: boolean } = {},
): ContextWindowReply {
  if (override !== undefined) return { model, contextWindow: override, source: 'override' };
  const known = knownContextWindow(model, options);
  return known === undefined
    ? { model, contextWindow: DEFAULT_CONTEXT_WINDOW, source: 'default' }
    : { model, contextWindow: known, source: 'table' };
}
