import type {
  ChatRequestMessage,
  RequestUserPart,
  ResponseFormat,
  SystemPrompt,
  ToolChoice,
  ToolDefinition,
} from '@flowmesh/contracts';
import { providerCallError, unfetchedUrl } from '../provider-call.error.js';
import type { ChatCall } from '../provider-adapter.js';
import { dataUrl, isImage } from '../shared/data-url.js';
import { summaryText } from '../shared/summary-text.js';
import type { OpenAICompatibleProfile } from './openai-compatible.profile.js';
import type {
  OpenAIChatBody,
  OpenAIContentPart,
  OpenAIMessage,
  OpenAIResponseFormat,
  OpenAIToolChoice,
  OpenAIToolDefinition,
} from './openai-wire.types.js';

/** The Chat Completions body for one call (pure). */
export function buildOpenAIChatBody(call: ChatCall, profile: OpenAICompatibleProfile): OpenAIChatBody {
  const system = systemText(call.system, call.responseFormat, profile);
  const messages: OpenAIMessage[] = [
    ...(system === undefined ? [] : [{ role: 'system' as const, content: system }]),
    ...toOpenAIMessages(call.messages, profile),
  ];
  const body: OpenAIChatBody = { model: call.model, messages };
  if (call.stream) {
    body.stream = true;
    if (profile.streamUsageOption) body.stream_options = { include_usage: true };
  }
  const tools = call.tools ?? [];
  if (tools.length > 0) {
    body.tools = tools.map(toOpenAITool);
    if (call.toolChoice !== undefined) body.tool_choice = toOpenAIToolChoice(call.toolChoice);
    if (call.parallelToolCalls !== undefined) body.parallel_tool_calls = call.parallelToolCalls;
  }
  if (call.webSearch && profile.webSearch) body.web_search_options = {};
  const format = toOpenAIResponseFormat(call.responseFormat, profile);
  if (format) body.response_format = format;
  if (call.temperature !== undefined) body.temperature = call.temperature;
  if (call.topP !== undefined) body.top_p = call.topP;
  if (call.stop?.length) body.stop = [...call.stop];
  if (call.maxOutputTokens !== undefined) body[profile.maxTokensField] = call.maxOutputTokens;
  if (call.reasoningEffort !== undefined) {
    if (profile.reasoningEffort === 'reasoning_effort') body.reasoning_effort = call.reasoningEffort;
    else if (profile.reasoningEffort === 'openrouter') body.reasoning = { effort: call.reasoningEffort };
  }
  return body;
}

function systemText(
  system: SystemPrompt | undefined,
  format: ResponseFormat | undefined,
  profile: OpenAICompatibleProfile,
): string | undefined {
  const text = typeof system === 'string' ? system : system?.map((block) => block.text).join('\n\n');
  // Without native JSON schema the schema goes in the prompt (json_object mode needs the word JSON there anyway).
  if (format?.type === 'json_schema' && profile.jsonSchema === 'json_object') {
    const instruction = `Answer with one JSON object only, valid against this JSON Schema:\n${JSON.stringify(format.schema)}`;
    return text ? `${text}\n\n${instruction}` : instruction;
  }
  return text === undefined || text === '' ? undefined : text;
}

function toOpenAIMessages(
  messages: readonly ChatRequestMessage[],
  profile: OpenAICompatibleProfile,
): OpenAIMessage[] {
  const out: OpenAIMessage[] = [];
  // Images in tool results: OpenAI tool messages carry text only, so they follow the run of tool messages as a user turn.
  let pendingToolMedia: OpenAIContentPart[] = [];
  const flushToolMedia = () => {
    if (pendingToolMedia.length > 0) out.push({ role: 'user', content: pendingToolMedia });
    pendingToolMedia = [];
  };
  const callId = (id: string) => (profile.toolCallId ? profile.toolCallId(id) : id);
  for (const message of messages) {
    if (message.role !== 'tool') flushToolMedia();
    switch (message.role) {
      case 'user':
        out.push({ role: 'user', content: userContent(message.content) });
        break;
      case 'summary':
        out.push({ role: 'user', content: summaryText(message) });
        break;
      case 'assistant': {
        // Reasoning is never replayed to this family: DeepSeek rejects it, the others ignore it.
        const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
        const calls = message.toolCalls ?? [];
        out.push({
          role: 'assistant',
          content: text === '' && calls.length > 0 ? null : text,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call) => ({
                  id: callId(call.id),
                  type: 'function' as const,
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        });
        break;
      }
      case 'tool': {
        const texts: string[] = [];
        for (const part of message.content) {
          if (part.type === 'text') texts.push(part.text);
          else pendingToolMedia.push(mediaPart(part));
        }
        const text = texts.join('\n');
        out.push({
          role: 'tool',
          tool_call_id: callId(message.toolCallId),
          content: message.isError && text !== '' ? `Error: ${text}` : text,
        });
        break;
      }
    }
  }
  flushToolMedia();
  return out;
}

function userContent(parts: readonly RequestUserPart[]): string | OpenAIContentPart[] {
  const [only] = parts;
  if (parts.length === 1 && only?.type === 'text') return only.text;
  return parts.map((part) =>
    part.type === 'text' ? { type: 'text' as const, text: part.text } : mediaPart(part),
  );
}

function mediaPart(part: Exclude<RequestUserPart, { type: 'text' }>): OpenAIContentPart {
  if (part.type === 'attachment') {
    throw providerCallError(
      'bad_request_internal',
      `an attachment (${part.object.key}) reached the gateway by reference; the caller must inline it`,
    );
  }
  if (part.type === 'url') throw unfetchedUrl();
  if (isImage(part)) return { type: 'image_url', image_url: { url: dataUrl(part) } };
  return {
    type: 'file',
    file: { ...(part.filename ? { filename: part.filename } : {}), file_data: dataUrl(part) },
  };
}

function toOpenAITool(tool: ToolDefinition): OpenAIToolDefinition {
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      parameters: tool.parameters,
      ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
    },
  };
}

function toOpenAIToolChoice(choice: ToolChoice): OpenAIToolChoice {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

function toOpenAIResponseFormat(
  format: ResponseFormat | undefined,
  profile: OpenAICompatibleProfile,
): OpenAIResponseFormat | undefined {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object' || profile.jsonSchema === 'json_object') return { type: 'json_object' };
  return {
    type: 'json_schema',
    json_schema: {
      name: format.name,
      ...(format.description !== undefined ? { description: format.description } : {}),
      schema: format.schema,
      strict: format.strict ?? true,
    },
  };
}
