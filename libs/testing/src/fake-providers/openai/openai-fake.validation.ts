export interface OpenAIValidationOptions {
  /** Body fields the vendor rejects (Mistral: `stream_options`), answered like its 422. */
  rejectFields?: readonly string[];
  /** Tool-call ids the vendor accepts (Mistral: 9 letters and digits). */
  toolCallId?: RegExp;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What the Chat Completions API refuses with a 400 before running anything; the first problem,
 * worded as the API words it, or undefined.
 */
export function validateChatBody(body: unknown, options: OpenAIValidationOptions): string | undefined {
  if (!isObject(body)) return 'We could not parse the JSON body of your request.';
  for (const field of options.rejectFields ?? []) {
    if (field in body) return `Extra inputs are not permitted: ${field}`;
  }
  if (typeof body.model !== 'string' || body.model === '') return 'you must provide a model parameter';
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.";
  }
  if (body.stream_options !== undefined && body.stream !== true) {
    return "The 'stream_options' parameter is only allowed when 'stream' is enabled.";
  }
  if (body.parallel_tool_calls !== undefined && !Array.isArray(body.tools)) {
    return "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.";
  }
  if (body.tool_choice !== undefined && !Array.isArray(body.tools)) {
    return "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.";
  }
  if (Array.isArray(body.tools)) {
    for (const [index, tool] of body.tools.entries()) {
      const name: unknown = isObject(tool) && isObject(tool.function) ? tool.function.name : undefined;
      if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
        return `Invalid 'tools[${index}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`;
      }
    }
  }
  const openCalls = new Set<string>();
  for (const [index, message] of body.messages.entries()) {
    if (!isObject(message) || typeof message.role !== 'string' || !ROLES.has(message.role)) {
      return `Invalid value for 'messages[${index}].role'.`;
    }
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
      openCalls.clear();
      for (const call of message.tool_calls) {
        const id: unknown = isObject(call) ? call.id : undefined;
        if (typeof id !== 'string')
          return `Missing required parameter: 'messages[${index}].tool_calls[0].id'.`;
        if (options.toolCallId && !options.toolCallId.test(id)) {
          return `Tool call id was ${id} but must be a-z, A-Z, 0-9, with a length of 9.`;
        }
        openCalls.add(id);
      }
    } else if (message.role === 'tool') {
      if (typeof message.tool_call_id !== 'string' || !openCalls.has(message.tool_call_id)) {
        return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      }
    } else openCalls.clear();
  }
  return undefined;
}
