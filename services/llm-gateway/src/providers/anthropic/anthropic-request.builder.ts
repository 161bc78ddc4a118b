import type {
  CacheMarker,
  ChatRequestMessage,
  RequestAssistantMessage,
  RequestUserPart,
  SystemPrompt,
  ToolChoice,
} from '@flowmesh/contracts';
import type { ChatCall } from '../provider-adapter.js';
import { providerCallError, unfetchedUrl } from '../provider-call.error.js';
import { structuredOutputTool } from '../shared/structured-output-tool.js';
import { summaryText } from '../shared/summary-text.js';
import { effortBudget, thinkingBudget } from '../shared/thinking-budget.js';
import type {
  AnthropicCacheControl,
  AnthropicContentBlock,
  AnthropicDocumentBlock,
  AnthropicImageBlock,
  AnthropicMessage,
  AnthropicMessagesBody,
  AnthropicTextBlock,
  AnthropicTool,
  AnthropicToolChoice,
  AnthropicWebSearchTool,
} from './anthropic-wire.types.js';

const WEB_SEARCH_TOOL: AnthropicWebSearchTool = { type: 'web_search_20250305', name: 'web_search' };

/** Room for the answer itself when the caller set no output limit (thinking comes on top). */
const DEFAULT_ANSWER_TOKENS = 8192;
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** The Messages body for one call (pure). On Vertex the model moves to the URL and the version into the body. */
export function buildAnthropicBody(
  call: ChatCall,
  options: { vertexVersion?: string } = {},
): AnthropicMessagesBody {
  const outputTool = structuredOutputTool(call);
  const tools: AnthropicTool[] = (call.tools ?? []).map((tool) => ({
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    input_schema: tool.parameters,
  }));
  if (outputTool)
    tools.push({
      name: outputTool.name,
      description: outputTool.description,
      input_schema: outputTool.schema,
    });
  const toolChoice = anthropicToolChoice(call, outputTool?.name, tools.length > 0);
  // Claude refuses thinking while a tool call is forced.
  const forced = toolChoice?.type === 'any' || toolChoice?.type === 'tool';
  const maxTokens = call.maxOutputTokens ?? DEFAULT_ANSWER_TOKENS + effortBudget(call.reasoningEffort);
  const budget = forced ? undefined : thinkingBudget(call.reasoningEffort, maxTokens);

  const body: AnthropicMessagesBody = {
    ...(options.vertexVersion ? { anthropic_version: options.vertexVersion } : { model: call.model }),
    max_tokens: maxTokens,
    messages: toAnthropicMessages(call.messages),
  };
  const system = systemBlocks(call.system);
  if (system.length > 0) body.system = system;
  if (tools.length > 0 || call.webSearch)
    body.tools = [...tools, ...(call.webSearch ? [WEB_SEARCH_TOOL] : [])];
  if (toolChoice) body.tool_choice = toolChoice;
  if (budget !== undefined) body.thinking = { type: 'enabled', budget_tokens: budget };
  // With thinking on, Claude takes only its default sampling.
  if (budget === undefined) {
    if (call.temperature !== undefined) body.temperature = Math.min(call.temperature, 1);
    if (call.topP !== undefined) body.top_p = call.topP;
  }
  if (call.stop?.length) body.stop_sequences = [...call.stop];
  if (call.stream) body.stream = true;
  return body;
}

function cacheControl(marker: CacheMarker | undefined): AnthropicCacheControl | undefined {
  if (!marker) return undefined;
  return marker.ttl ? { type: 'ephemeral', ttl: marker.ttl } : { type: 'ephemeral' };
}

function systemBlocks(system: SystemPrompt | undefined): AnthropicTextBlock[] {
  if (system === undefined) return [];
  if (typeof system === 'string') return system === '' ? [] : [{ type: 'text', text: system }];
  return system
    .filter((block) => block.text !== '')
    .map((block) => {
      const control = cacheControl(block.cache);
      return { type: 'text' as const, text: block.text, ...(control ? { cache_control: control } : {}) };
    });
}

function anthropicToolChoice(
  call: ChatCall,
  outputTool: string | undefined,
  hasTools: boolean,
): AnthropicToolChoice | undefined {
  if (!hasTools) return undefined;
  const parallel = call.parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  if (outputTool) {
    // With tools of its own the model may still call them first; the answer comes through the output tool.
    const ownTools = (call.tools ?? []).length > 0 && call.toolChoice !== 'none';
    return ownTools ? { type: 'any', ...parallel } : { type: 'tool', name: outputTool, ...parallel };
  }
  const choice: ToolChoice | undefined = call.toolChoice;
  if (choice === undefined)
    return call.parallelToolCalls === false ? { type: 'auto', ...parallel } : undefined;
  if (choice === 'none') return { type: 'none' };
  if (choice === 'auto') return { type: 'auto', ...parallel };
  if (choice === 'required') return { type: 'any', ...parallel };
  return { type: 'tool', name: choice.name, ...parallel };
}

/** Blocks from consecutive messages of one role join one turn: tool results and the user's next words travel together. */
function toAnthropicMessages(messages: readonly ChatRequestMessage[]): AnthropicMessage[] {
  const out: AnthropicMessage[] = [];
  const push = (role: AnthropicMessage['role'], blocks: AnthropicContentBlock[], marker?: CacheMarker) => {
    if (blocks.length === 0) return;
    markLastCacheable(blocks, marker);
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        push('user', message.content.flatMap(userBlock), message.cache);
        break;
      case 'summary':
        push('user', [{ type: 'text', text: summaryText(message) }], message.cache);
        break;
      case 'assistant':
        push('assistant', assistantBlocks(message), message.cache);
        break;
      case 'tool':
        push(
          'user',
          [
            {
              type: 'tool_result',
              tool_use_id: message.toolCallId,
              content: message.content.flatMap(userBlock),
              ...(message.isError ? { is_error: true } : {}),
            },
          ],
          message.cache,
        );
        break;
    }
  }
  return out;
}

function markLastCacheable(blocks: AnthropicContentBlock[], marker: CacheMarker | undefined): void {
  const control = cacheControl(marker);
  if (!control) return;
  for (let at = blocks.length - 1; at >= 0; at--) {
    const block = blocks[at];
    // Thinking blocks cannot carry a breakpoint; the one before them does.
    if (block && block.type !== 'thinking' && block.type !== 'redacted_thinking') {
      block.cache_control = control;
      return;
    }
  }
}

function userBlock(
  part: RequestUserPart,
): Array<AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock> {
  switch (part.type) {
    case 'text':
      // The API refuses empty text blocks.
      return part.text === '' ? [] : [{ type: 'text', text: part.text }];
    case 'attachment':
      throw providerCallError(
        'bad_request_internal',
        `an attachment (${part.object.key}) reached the gateway by reference; the caller must inline it`,
      );
    case 'url':
      throw unfetchedUrl();
    case 'inline_data': {
      if (IMAGE_TYPES.has(part.mediaType)) {
        return [{ type: 'image', source: { type: 'base64', media_type: part.mediaType, data: part.data } }];
      }
      const title = part.filename ? { title: part.filename } : {};
      if (part.mediaType === 'application/pdf') {
        return [
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: part.data },
            ...title,
          },
        ];
      }
      if (part.mediaType.startsWith('text/')) {
        const text = Buffer.from(part.data, 'base64').toString('utf8');
        return [
          { type: 'document', source: { type: 'text', media_type: 'text/plain', data: text }, ...title },
        ];
      }
      throw providerCallError(
        'bad_request_user',
        `Anthropic models do not read ${part.mediaType} attachments`,
      );
    }
  }
}

/** Thinking first (with its signature, unchanged), then text, then the tool calls, as Claude produced them. */
function assistantBlocks(message: RequestAssistantMessage): AnthropicContentBlock[] {
  const blocks: AnthropicContentBlock[] = [];
  for (const part of message.content) {
    if (part.type === 'text') {
      if (part.text !== '') blocks.push({ type: 'text', text: part.text });
    } else if (part.redacted !== undefined) {
      blocks.push({ type: 'redacted_thinking', data: part.redacted });
    } else if (part.signature !== undefined) {
      blocks.push({ type: 'thinking', thinking: part.text, signature: part.signature });
    }
    // Reasoning without a signature came from another provider: Claude would refuse it.
  }
  for (const call of message.toolCalls ?? []) {
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call.arguments) });
  }
  return blocks;
}

/** Claude wants the input as an object; arguments a model left malformed replay as an empty one. */
function toolInput(argumentsText: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(argumentsText === '' ? '{}' : argumentsText);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
