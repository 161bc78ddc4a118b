import type {
  ContentBlock,
  ConverseStreamCommandInput,
  DocumentFormat,
  ImageFormat,
  Message,
  SystemContentBlock,
  Tool,
  ToolChoice as BedrockToolChoice,
  ToolResultContentBlock,
  ToolUseBlock,
} from '@aws-sdk/client-bedrock-runtime';
import type {
  CacheMarker,
  ChatRequestMessage,
  InlineDataPart,
  RequestAssistantMessage,
  RequestUserPart,
  SystemPrompt,
} from '@flowmesh/contracts';
import type { ChatCall } from '../provider-adapter.js';
import { providerCallError, unfetchedUrl } from '../provider-call.error.js';
import { structuredOutputTool } from '../shared/structured-output-tool.js';
import { summaryText } from '../shared/summary-text.js';
import { effortBudget, thinkingBudget } from '../shared/thinking-budget.js';

/** A JSON value as the SDK types it (tool inputs and schemas). */
type DocumentType = NonNullable<ToolUseBlock['input']>;

/** The Converse input shared by Converse and ConverseStream. */
export type ConverseInput = ConverseStreamCommandInput;

const IMAGE_FORMATS: Record<string, ImageFormat> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};
const DOCUMENT_FORMATS: Record<string, DocumentFormat> = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
};
const DEFAULT_ANSWER_TOKENS = 8192;

/** Claude on Bedrock (model ids, inference profiles and ARNs all name it). */
function isClaude(model: string): boolean {
  return /anthropic\.claude|claude-/.test(model);
}

/** The Converse input for one call (pure). */
export function buildConverseInput(call: ChatCall): ConverseInput {
  const outputTool = structuredOutputTool(call);
  const specs: Tool[] = (call.tools ?? []).map((tool) => ({
    toolSpec: {
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      inputSchema: { json: tool.parameters as DocumentType },
    },
  }));
  if (outputTool) {
    specs.push({
      toolSpec: {
        name: outputTool.name,
        description: outputTool.description,
        inputSchema: { json: outputTool.schema as DocumentType },
      },
    });
  }
  const messages = toConverseMessages(call.messages);
  // Bedrock refuses tool blocks in the history unless a toolConfig is present.
  const historyTools = toolNamesInHistory(call.messages).filter(
    (name) => !specs.some((spec) => spec.toolSpec?.name === name),
  );
  for (const name of historyTools)
    specs.push({ toolSpec: { name, inputSchema: { json: { type: 'object' } } } });

  const toolChoice = converseToolChoice(call, outputTool?.name);
  const forced = toolChoice !== undefined && !('auto' in toolChoice && toolChoice.auto);
  const maxTokens =
    call.maxOutputTokens ??
    (isClaude(call.model) ? DEFAULT_ANSWER_TOKENS + effortBudget(call.reasoningEffort) : undefined);
  const budget =
    isClaude(call.model) && !forced && maxTokens !== undefined
      ? thinkingBudget(call.reasoningEffort, maxTokens)
      : undefined;

  const input: ConverseInput = { modelId: call.model, messages };
  const system = systemBlocks(call.system);
  if (system.length > 0) input.system = system;
  const inference: NonNullable<ConverseInput['inferenceConfig']> = {};
  if (maxTokens !== undefined) inference.maxTokens = maxTokens;
  // Claude thinks only with its default sampling.
  if (budget === undefined && call.temperature !== undefined) inference.temperature = call.temperature;
  if (budget === undefined && call.topP !== undefined) inference.topP = call.topP;
  if (call.stop?.length) inference.stopSequences = [...call.stop];
  if (Object.keys(inference).length > 0) input.inferenceConfig = inference;
  if (specs.length > 0) input.toolConfig = { tools: specs, ...(toolChoice ? { toolChoice } : {}) };
  if (budget !== undefined) {
    input.additionalModelRequestFields = { thinking: { type: 'enabled', budget_tokens: budget } };
  } else if (/openai\.gpt-oss/.test(call.model) && call.reasoningEffort && call.reasoningEffort !== 'none') {
    input.additionalModelRequestFields = {
      reasoning_effort: call.reasoningEffort === 'minimal' ? 'low' : call.reasoningEffort,
    };
  }
  return input;
}

function cachePoint(
  marker: CacheMarker | undefined,
): { cachePoint: { type: 'default'; ttl?: '5m' | '1h' } } | undefined {
  if (!marker) return undefined;
  return { cachePoint: { type: 'default', ...(marker.ttl ? { ttl: marker.ttl } : {}) } };
}

function systemBlocks(system: SystemPrompt | undefined): SystemContentBlock[] {
  if (system === undefined) return [];
  if (typeof system === 'string') return system === '' ? [] : [{ text: system }];
  return system.flatMap((block): SystemContentBlock[] => {
    const point = cachePoint(block.cache);
    return [...(block.text === '' ? [] : [{ text: block.text }]), ...(point ? [point] : [])];
  });
}

function converseToolChoice(call: ChatCall, outputTool: string | undefined): BedrockToolChoice | undefined {
  if (outputTool) {
    const ownTools = (call.tools ?? []).length > 0 && call.toolChoice !== 'none';
    return ownTools ? { any: {} } : { tool: { name: outputTool } };
  }
  const choice = call.toolChoice;
  if (choice === undefined || (call.tools ?? []).length === 0) return undefined;
  if (choice === 'auto') return { auto: {} };
  if (choice === 'required') return { any: {} };
  // Converse has no "none": the tools stay declared and the model is left to choose.
  if (choice === 'none') return undefined;
  return { tool: { name: choice.name } };
}

function toolNamesInHistory(messages: readonly ChatRequestMessage[]): string[] {
  const names = new Set<string>();
  for (const message of messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) names.add(call.name);
    if (message.role === 'tool') names.add(message.name);
  }
  return [...names];
}

/** Roles must alternate, so consecutive messages of one role join one turn; tool results open the user turn. */
function toConverseMessages(messages: readonly ChatRequestMessage[]): Message[] {
  const out: Message[] = [];
  let documents = 0;
  const push = (role: 'user' | 'assistant', blocks: ContentBlock[], marker?: CacheMarker) => {
    if (blocks.length === 0) return;
    const point = cachePoint(marker);
    if (point) blocks.push(point);
    const last = out.at(-1);
    if (last?.role === role && last.content) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  const media = (part: RequestUserPart): ContentBlock[] => userBlocks(part, () => ++documents);
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        push('user', message.content.flatMap(media), message.cache);
        break;
      case 'summary':
        push('user', [{ text: summaryText(message) }], message.cache);
        break;
      case 'assistant':
        push('assistant', assistantBlocks(message), message.cache);
        break;
      case 'tool':
        push(
          'user',
          [
            {
              toolResult: {
                toolUseId: message.toolCallId,
                content: message.content.flatMap((part) => toolResultBlocks(part, () => ++documents)),
                status: message.isError ? 'error' : 'success',
              },
            },
          ],
          message.cache,
        );
        break;
    }
  }
  return out;
}

function bytes(part: InlineDataPart): Uint8Array {
  return new Uint8Array(Buffer.from(part.data, 'base64'));
}

/** Bedrock allows only letters, digits, single spaces, hyphens, parentheses and brackets in a document name. */
function documentName(part: InlineDataPart, ordinal: () => number): string {
  const cleaned = (part.filename ?? '')
    .replace(/\.[A-Za-z0-9]+$/, '')
    .replace(/[^A-Za-z0-9\s\-()[\]]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
  return cleaned || `document ${ordinal()}`;
}

function userBlocks(part: RequestUserPart, ordinal: () => number): ContentBlock[] {
  if (part.type === 'text') return part.text.trim() === '' ? [] : [{ text: part.text }];
  if (part.type === 'attachment') {
    throw providerCallError(
      'bad_request_internal',
      `an attachment (${part.object.key}) reached the gateway by reference; the caller must inline it`,
    );
  }
  if (part.type === 'url') throw unfetchedUrl();
  const image = IMAGE_FORMATS[part.mediaType];
  if (image) return [{ image: { format: image, source: { bytes: bytes(part) } } }];
  const document = DOCUMENT_FORMATS[part.mediaType];
  if (document)
    return [
      { document: { format: document, name: documentName(part, ordinal), source: { bytes: bytes(part) } } },
    ];
  throw providerCallError('bad_request_user', `Bedrock models do not read ${part.mediaType} attachments`);
}

function toolResultBlocks(part: RequestUserPart, ordinal: () => number): ToolResultContentBlock[] {
  if (part.type === 'text') return [{ text: part.text }];
  return userBlocks(part, ordinal).flatMap((block): ToolResultContentBlock[] => {
    if (block.image) return [{ image: block.image }];
    if (block.document) return [{ document: block.document }];
    return [];
  });
}

/** Reasoning first (signature or redacted bytes unchanged), then text, then the tool uses. */
function assistantBlocks(message: RequestAssistantMessage): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const part of message.content) {
    if (part.type === 'text') {
      if (part.text.trim() !== '') blocks.push({ text: part.text });
    } else if (part.redacted !== undefined) {
      blocks.push({
        reasoningContent: { redactedContent: new Uint8Array(Buffer.from(part.redacted, 'base64')) },
      });
    } else if (part.signature !== undefined) {
      blocks.push({ reasoningContent: { reasoningText: { text: part.text, signature: part.signature } } });
    }
  }
  for (const call of message.toolCalls ?? []) {
    blocks.push({ toolUse: { toolUseId: call.id, name: call.name, input: toolInput(call.arguments) } });
  }
  return blocks;
}

function toolInput(argumentsText: string): DocumentType {
  try {
    const parsed: unknown = JSON.parse(argumentsText === '' ? '{}' : argumentsText);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as DocumentType)
      : {};
  } catch {
    return {};
  }
}
