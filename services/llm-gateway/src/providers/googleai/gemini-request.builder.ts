import type {
  ChatRequestMessage,
  ReasoningEffort,
  RequestAssistantMessage,
  RequestUserPart,
  SystemPrompt,
  ToolChoice,
} from '@flowmesh/contracts';
import type { ChatCall } from '../provider-adapter.js';
import { providerCallError, unfetchedUrl } from '../provider-call.error.js';
import { summaryText } from '../shared/summary-text.js';
import { toGeminiParameters, toGeminiSchema } from './gemini-schema.js';
import type {
  GeminiContent,
  GeminiGenerationConfig,
  GeminiPart,
  GeminiRequestBody,
} from './gemini-wire.types.js';

const THINKING_BUDGETS: Record<ReasoningEffort, number> = {
  none: 0,
  minimal: 512,
  low: 1024,
  medium: 8192,
  high: 24576,
};

/** The `generateContent` body for one call (pure). */
export function buildGeminiBody(call: ChatCall): GeminiRequestBody {
  const body: GeminiRequestBody = { contents: toGeminiContents(call.messages) };
  const system = systemText(call.system);
  if (system) body.systemInstruction = { parts: [{ text: system }] };
  const tools = call.tools ?? [];
  if (tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: tools.map((tool) => {
          const parameters = toGeminiParameters(tool.parameters);
          return {
            name: tool.name,
            ...(tool.description !== undefined ? { description: tool.description } : {}),
            ...(parameters ? { parameters } : {}),
          };
        }),
      },
    ];
    const toolConfig = geminiToolConfig(call.toolChoice);
    if (toolConfig) body.toolConfig = toolConfig;
  }
  if (call.webSearch) body.tools = [...(body.tools ?? []), { googleSearch: {} }];
  const generationConfig = geminiGenerationConfig(call);
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  return body;
}

function systemText(system: SystemPrompt | undefined): string | undefined {
  const text = typeof system === 'string' ? system : system?.map((block) => block.text).join('\n\n');
  return text === undefined || text === '' ? undefined : text;
}

function geminiToolConfig(choice: ToolChoice | undefined): GeminiRequestBody['toolConfig'] {
  if (choice === undefined) return undefined;
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } };
}

function geminiGenerationConfig(call: ChatCall): GeminiGenerationConfig {
  const config: GeminiGenerationConfig = {};
  if (call.temperature !== undefined) config.temperature = call.temperature;
  if (call.topP !== undefined) config.topP = call.topP;
  if (call.maxOutputTokens !== undefined) config.maxOutputTokens = call.maxOutputTokens;
  if (call.stop?.length) config.stopSequences = [...call.stop];
  const format = call.responseFormat;
  if (format?.type === 'json_object') config.responseMimeType = 'application/json';
  if (format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    config.responseSchema = toGeminiSchema(format.schema);
  }
  const effort = call.reasoningEffort;
  if (effort !== undefined) {
    // Gemini 3 takes a level; 2.5 a token budget (0 turns thinking off where the model allows it).
    if (/gemini-3/.test(call.model)) {
      config.thinkingConfig = {
        thinkingLevel: effort === 'medium' || effort === 'high' ? 'high' : 'low',
        includeThoughts: effort !== 'none',
      };
    } else {
      config.thinkingConfig = {
        thinkingBudget: THINKING_BUDGETS[effort],
        includeThoughts: effort !== 'none',
      };
    }
  }
  return config;
}

/** Consecutive turns of one role join one content: function responses travel together after their call turn. */
function toGeminiContents(messages: readonly ChatRequestMessage[]): GeminiContent[] {
  const out: GeminiContent[] = [];
  const push = (role: GeminiContent['role'], parts: GeminiPart[]) => {
    if (parts.length === 0) return;
    const last = out.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else out.push({ role, parts });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        push('user', message.content.flatMap(userPart));
        break;
      case 'summary':
        push('user', [{ text: summaryText(message) }]);
        break;
      case 'assistant':
        push('model', modelParts(message));
        break;
      case 'tool': {
        const texts = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : []));
        const media = message.content.filter((part) => part.type !== 'text').flatMap(userPart);
        const text = texts.join('\n');
        // Gemini matches a response to its call by name (and order); the id is ours.
        push('user', [
          {
            functionResponse: {
              name: message.name,
              response: message.isError ? { error: text } : { result: jsonOrText(text) },
            },
          },
          ...media,
        ]);
        break;
      }
    }
  }
  return out;
}

function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function userPart(part: RequestUserPart): GeminiPart[] {
  switch (part.type) {
    case 'text':
      return part.text === '' ? [] : [{ text: part.text }];
    case 'inline_data':
      return [{ inlineData: { mimeType: part.mediaType, data: part.data } }];
    case 'attachment':
      throw providerCallError(
        'bad_request_internal',
        `an attachment (${part.object.key}) reached the gateway by reference; the caller must inline it`,
      );
    case 'url':
      throw unfetchedUrl();
  }
}

/**
 * The model's turn as Gemini produced it: thoughts that carry a signature go back with it (a
 * signature-only reasoning part is the signature Gemini put on the text part before it), and
 * each function call carries its `thoughtSignature`, which Gemini 3 requires back.
 */
function modelParts(message: RequestAssistantMessage): GeminiPart[] {
  const parts: GeminiPart[] = [];
  for (const part of message.content) {
    if (part.type === 'text') {
      if (part.text !== '') parts.push({ text: part.text });
      continue;
    }
    if (part.signature === undefined) continue;
    const previous = parts.at(-1);
    if (
      part.text === '' &&
      previous &&
      'text' in previous &&
      !previous.thought &&
      previous.thoughtSignature === undefined
    ) {
      previous.thoughtSignature = part.signature;
    } else {
      parts.push({ text: part.text, thought: true, thoughtSignature: part.signature });
    }
  }
  for (const call of message.toolCalls ?? []) {
    parts.push({
      functionCall: { name: call.name, args: argsObject(call.arguments) },
      ...(call.signature !== undefined ? { thoughtSignature: call.signature } : {}),
    });
  }
  return parts;
}

function argsObject(argumentsText: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(argumentsText === '' ? '{}' : argumentsText);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
