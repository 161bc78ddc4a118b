import {
  ChatParametersSchema,
  MeshError,
  toValidationIssues,
  type ChatParameters,
  type ChatRequestMessage,
  type ReasoningEffort,
  type RequestUserPart,
  REASONING_EFFORTS,
} from '@flowmesh/contracts';
import type {
  OpenAIChatRequest,
  OpenAIMessage,
  OpenAIUserContentPart,
} from './openai-chat-request.schema.js';
import type { MediaParamOf } from '../media/media-url.resolver.js';

/** An OpenAI request as one normalized call: the model apart, since it is not a chat parameter. */
export interface MappedChatCall {
  readonly model: string;
  readonly stream: boolean;
  /** The caller asked for the usage chunk (`stream_options.include_usage`). */
  readonly includeUsage: boolean;
  readonly parameters: ChatParameters;
  /** The OpenAI field of a `url` part (`messages[2].content[1].image_url.url`), for errors. */
  readonly mediaParam: MediaParamOf;
}

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)(?:;[^,]*)?;base64,(.*)$/s;
const HTTP_URL = /^https?:\/\//i;

/**
 * OpenAI Chat Completions -> the normalized chat parameters. System and developer messages
 * become the system prompt (in order); a tool message takes its tool's name from the assistant
 * call it answers; images and files come inline (`data:` URLs, `file_data`) or by `http(s)` URL
 * (`image_url.url`, and `file.file_data` as OpenRouter takes it), which become `url` parts the
 * gateway fetches before the call (`media/`). Fails with VALIDATION_FAILED naming the field.
 */
export function mapOpenAIChatRequest(body: OpenAIChatRequest): MappedChatCall {
  const system: string[] = [];
  const messages: ChatRequestMessage[] = [];
  const toolNames = new Map<string, string>();
  const mediaParams = new Map<string, string>();

  body.messages.forEach((message, index) => {
    const at = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(textOf(message.content));
        return;
      case 'user':
        messages.push({
          role: 'user',
          content: userParts(message.content, at, (partIndex, param) =>
            mediaParams.set(`${messages.length}/${partIndex}`, param),
          ),
        });
        return;
      case 'assistant':
        messages.push(assistantMessage(message, toolNames));
        return;
      case 'tool': {
        const name = toolNames.get(message.tool_call_id);
        if (!name)
          throw invalid(`${at}.tool_call_id`, `answers no earlier tool call ("${message.tool_call_id}")`);
        messages.push({
          role: 'tool',
          toolCallId: message.tool_call_id,
          name,
          content: [{ type: 'text', text: textOf(message.content) }],
        });
        return;
      }
    }
  });

  const candidate: ChatParameters = {
    ...(system.length > 0 ? { system: system.join('\n\n') } : {}),
    messages,
    ...(body.tools?.length
      ? {
          tools: body.tools.map((tool) => ({
            name: tool.function.name,
            ...(tool.function.description ? { description: tool.function.description } : {}),
            parameters: tool.function.parameters ?? { type: 'object', properties: {} },
            ...(tool.function.strict != null ? { strict: tool.function.strict } : {}),
          })),
        }
      : {}),
    ...(body.tool_choice !== undefined
      ? {
          toolChoice:
            typeof body.tool_choice === 'string'
              ? body.tool_choice
              : { type: 'tool' as const, name: body.tool_choice.function.name },
        }
      : {}),
    ...(body.parallel_tool_calls !== undefined ? { parallelToolCalls: body.parallel_tool_calls } : {}),
    ...(body.response_format ? { responseFormat: responseFormat(body.response_format) } : {}),
    ...(body.temperature != null ? { temperature: body.temperature } : {}),
    ...(body.top_p != null ? { topP: body.top_p } : {}),
    ...((body.max_completion_tokens ?? body.max_tokens) != null
      ? { maxOutputTokens: (body.max_completion_tokens ?? body.max_tokens) as number }
      : {}),
    ...(body.stop != null ? { stop: typeof body.stop === 'string' ? [body.stop] : body.stop } : {}),
    ...(body.reasoning_effort != null ? { reasoningEffort: reasoningEffort(body.reasoning_effort) } : {}),
    stream: body.stream === true,
  };
  const checked = ChatParametersSchema.safeParse(candidate);
  if (!checked.success) {
    const [issue] = toValidationIssues(checked.error);
    const url = /^messages\[(\d+)\]\.content\[(\d+)\]\.url$/.exec(issue?.path ?? '');
    const param = url ? mediaParams.get(`${url[1]}/${url[2]}`) : undefined;
    throw invalid(param ?? issue?.path ?? '(root)', issue?.message ?? 'is invalid');
  }
  return {
    model: body.model,
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
    parameters: checked.data,
    mediaParam: (messageIndex, partIndex) =>
      mediaParams.get(`${messageIndex}/${partIndex}`) ?? `messages[${messageIndex}].content[${partIndex}]`,
  };
}

function assistantMessage(
  message: Extract<OpenAIMessage, { role: 'assistant' }>,
  toolNames: Map<string, string>,
): ChatRequestMessage {
  const text =
    message.content == null
      ? ''
      : typeof message.content === 'string'
        ? message.content
        : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  const toolCalls = (message.tool_calls ?? []).map((call) => {
    toolNames.set(call.id, call.function.name);
    return { id: call.id, name: call.function.name, arguments: call.function.arguments };
  });
  const content = text || toolCalls.length === 0 ? [{ type: 'text' as const, text }] : [];
  return { role: 'assistant', content, ...(toolCalls.length > 0 ? { toolCalls } : {}) };
}

function userParts(
  content: string | OpenAIUserContentPart[],
  at: string,
  byUrl: (partIndex: number, param: string) => void,
): RequestUserPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part, index): RequestUserPart => {
    const where = `${at}.content[${index}]`;
    switch (part.type) {
      case 'text':
        return { type: 'text', text: part.text };
      case 'image_url':
        if (HTTP_URL.test(part.image_url.url)) {
          byUrl(index, `${where}.image_url.url`);
          return { type: 'url', url: part.image_url.url, mediaType: 'image/*' };
        }
        return inlineData(part.image_url.url, `${where}.image_url.url`);
      case 'file': {
        if (!part.file.file_data)
          throw invalid(`${where}.file`, 'must carry file_data (uploaded file ids are not supported)');
        if (HTTP_URL.test(part.file.file_data)) {
          byUrl(index, `${where}.file.file_data`);
          const filename = part.file.filename;
          return { type: 'url', url: part.file.file_data, ...(filename ? { filename } : {}) };
        }
        return inlineData(part.file.file_data, `${where}.file.file_data`, part.file.filename);
      }
      default:
        throw invalid(`${where}.type`, `"${part.type}" parts are not supported`);
    }
  });
}

function inlineData(url: string, where: string, filename?: string): RequestUserPart {
  const match = DATA_URL.exec(url);
  if (!match) throw invalid(where, 'must be a base64 data: URL or an http(s) URL');
  return { type: 'inline_data', mediaType: match[1], data: match[2], ...(filename ? { filename } : {}) };
}

function responseFormat(
  format: NonNullable<OpenAIChatRequest['response_format']>,
): NonNullable<ChatParameters['responseFormat']> {
  if (format.type !== 'json_schema') return { type: format.type };
  const spec = format.json_schema;
  return {
    type: 'json_schema',
    name: spec.name,
    ...(spec.description ? { description: spec.description } : {}),
    schema: spec.schema ?? { type: 'object' },
    ...(spec.strict != null ? { strict: spec.strict } : {}),
  };
}

function reasoningEffort(value: string): ReasoningEffort {
  if ((REASONING_EFFORTS as readonly string[]).includes(value)) return value as ReasoningEffort;
  // OpenAI added `xhigh`; providers that take fewer levels get the nearest one.
  if (value === 'xhigh') return 'high';
  throw invalid('reasoning_effort', `must be one of ${REASONING_EFFORTS.join(', ')}`);
}

function textOf(content: string | ReadonlyArray<{ type: string; text?: string }>): string {
  return typeof content === 'string' ? content : content.map((part) => part.text ?? '').join('');
}

export function invalid(param: string, problem: string): MeshError {
  return new MeshError('VALIDATION_FAILED', `${param} ${problem}`, { param });
}
