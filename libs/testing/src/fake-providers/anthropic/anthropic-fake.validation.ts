/**
 * The request checks the real Messages API makes that a translator most easily gets wrong, each
 * answered with the API's own 400 message so a gateway bug shows up as it would in production.
 */

const SAMPLING_PARAMETERS = ['temperature', 'top_p', 'top_k'] as const;
const NEW_API_VERSION = '2026-10-21';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function blocksOf(message: Json): Json[] {
  return Array.isArray(message.content) ? message.content.filter(isObject) : [];
}

/** A problem message, or undefined when the body passes. */
export function validateAnthropicBody(
  body: unknown,
  context: { apiVersion: string | undefined; vertex: boolean; enforceThinkingReplay: boolean },
): string | undefined {
  if (!isObject(body)) return 'request body must be a JSON object';
  if (context.vertex) {
    if (body.model !== undefined) return 'model: Extra inputs are not permitted';
    if (typeof body.anthropic_version !== 'string') return 'anthropic_version: Field required';
  } else {
    if (!context.apiVersion) return 'anthropic-version: header is required';
    if (typeof body.model !== 'string') return 'model: Field required';
    if (body.anthropic_version !== undefined) return 'anthropic_version: Extra inputs are not permitted';
  }
  if (typeof body.max_tokens !== 'number') return 'max_tokens: Field required';
  const version = context.vertex ? String(body.anthropic_version) : context.apiVersion;
  if (version === NEW_API_VERSION) {
    for (const parameter of SAMPLING_PARAMETERS) {
      if (body[parameter] !== undefined) {
        return `${parameter}: sampling parameters are not supported with anthropic-version ${NEW_API_VERSION}`;
      }
    }
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return 'messages: at least one message is required';
  const messages = body.messages as unknown[];
  for (const [index, message] of messages.entries()) {
    if (!isObject(message)) return `messages.${index}: must be an object`;
    if (message.role !== 'user' && message.role !== 'assistant') {
      return `messages.${index}.role: Input should be 'user' or 'assistant'`;
    }
    for (const [blockIndex, block] of blocksOf(message).entries()) {
      if (block.type === 'thinking' && (typeof block.signature !== 'string' || block.signature === '')) {
        return `messages.${index}.content.${blockIndex}.thinking.signature: Field required`;
      }
      if (block.type === 'tool_result' && message.role !== 'user') {
        return `messages.${index}.content.${blockIndex}: tool_result blocks are only allowed in user messages`;
      }
    }
  }
  if (context.enforceThinkingReplay && isObject(body.thinking) && body.thinking.type === 'enabled') {
    const problem = missingThinkingReplay(messages.filter(isObject));
    if (problem) return problem;
  }
  return undefined;
}

/**
 * With thinking on, an assistant turn that called tools must come back starting with its
 * thinking block (signature included) while the tool loop is still open.
 */
function missingThinkingReplay(messages: Json[]): string | undefined {
  const lastAssistant = messages.findLastIndex((message) => message.role === 'assistant');
  if (lastAssistant < 0) return undefined;
  const last = messages[lastAssistant];
  const blocks = last ? blocksOf(last) : [];
  const callsTools = blocks.some((block) => block.type === 'tool_use');
  const first = blocks[0];
  if (callsTools && first?.type !== 'thinking' && first?.type !== 'redacted_thinking') {
    return (
      `messages.${lastAssistant}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found ` +
      `\`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block ` +
      '(preceeding the lastmost set of `tool_use` and `tool_result` blocks).'
    );
  }
  return undefined;
}
