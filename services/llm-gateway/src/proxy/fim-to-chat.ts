/** Providers whose API completes code between a prefix and a suffix natively. */
export const NATIVE_FIM_KINDS: ReadonlySet<string> = new Set(['mistral']);

export const FIM_PATH = 'fim/completions';

/** What an editor sends for fill-in-the-middle (Mistral's FIM shape, the de facto standard). */
interface FimRequest {
  model?: unknown;
  prompt?: unknown;
  suffix?: unknown;
  max_tokens?: unknown;
  temperature?: unknown;
  top_p?: unknown;
  stop?: unknown;
  stream?: unknown;
}

const FIM_SYSTEM_PROMPT =
  'You complete code. You are given the code before the cursor and the code after it. Answer with ' +
  'exactly the code that goes at the cursor: no explanation, no markdown fences, nothing repeated ' +
  'from before or after the cursor.';

/**
 * A FIM request as a chat completion for providers without native FIM: the prefix and suffix go
 * into one user message around a cursor marker, the sampling settings carry over. The answer is
 * already in the chat completion shape Mistral's FIM endpoint answers with.
 */
export function fimToChatCompletion(body: unknown): Record<string, unknown> {
  const fim = (typeof body === 'object' && body !== null ? body : {}) as FimRequest;
  const prompt = typeof fim.prompt === 'string' ? fim.prompt : '';
  const suffix = typeof fim.suffix === 'string' ? fim.suffix : '';
  const user = suffix
    ? `<code_before_cursor>\n${prompt}\n</code_before_cursor>\n<code_after_cursor>\n${suffix}\n</code_after_cursor>`
    : `<code_before_cursor>\n${prompt}\n</code_before_cursor>`;
  return {
    model: fim.model,
    messages: [
      { role: 'system', content: FIM_SYSTEM_PROMPT },
      { role: 'user', content: user },
    ],
    ...(typeof fim.max_tokens === 'number' ? { max_tokens: fim.max_tokens } : {}),
    ...(typeof fim.temperature === 'number' ? { temperature: fim.temperature } : {}),
    ...(typeof fim.top_p === 'number' ? { top_p: fim.top_p } : {}),
    ...(typeof fim.stop === 'string' || Array.isArray(fim.stop) ? { stop: fim.stop } : {}),
    ...(fim.stream === true ? { stream: true } : {}),
  };
}
