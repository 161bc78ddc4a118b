import type { ReasoningPart, TextPart, ToolCall } from '@flowmesh/contracts';
import type { ChatCall, ProviderChatResult } from '../provider-adapter.js';
import { providerCallError } from '../provider-call.error.js';
import { structuredOutputTool } from '../shared/structured-output-tool.js';
import { anthropicFinishReason } from './anthropic-finish-reason.js';
import { normalizeAnthropicUsage } from './anthropic-usage.js';
import type { AnthropicMessageResponse } from './anthropic-wire.types.js';

/** A Messages response, normalized (pure). Thinking keeps its signature; the output tool's input becomes the text. */
export function parseAnthropicMessage(
  json: unknown,
  call: Pick<ChatCall, 'responseFormat' | 'tools'>,
): ProviderChatResult {
  const message = (typeof json === 'object' && json !== null ? json : {}) as AnthropicMessageResponse;
  if (!Array.isArray(message.content))
    throw providerCallError('provider_outage', 'Anthropic answered without content');
  const outputTool = structuredOutputTool(call)?.name;
  const content: Array<TextPart | ReasoningPart> = [];
  const toolCalls: ToolCall[] = [];
  let answeredThroughOutputTool = false;
  for (const block of message.content) {
    if (block.type === 'text' && 'text' in block) content.push({ type: 'text', text: block.text });
    else if (block.type === 'thinking' && 'thinking' in block) {
      content.push({
        type: 'reasoning',
        text: block.thinking,
        ...(block.signature ? { signature: block.signature } : {}),
      });
    } else if (block.type === 'redacted_thinking' && 'data' in block) {
      content.push({ type: 'reasoning', text: '', redacted: block.data });
    } else if (block.type === 'tool_use' && 'input' in block) {
      if (block.name === outputTool) {
        answeredThroughOutputTool = true;
        content.push({ type: 'text', text: JSON.stringify(block.input ?? {}) });
      } else toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) });
    }
  }
  const usage = normalizeAnthropicUsage(message.usage);
  return {
    ...(message.id ? { id: message.id } : {}),
    ...(message.model ? { model: message.model } : {}),
    content,
    toolCalls,
    ...(usage ? { usage } : {}),
    finishReason: anthropicFinishReason(
      message.stop_reason,
      answeredThroughOutputTool && toolCalls.length === 0,
    ),
    ...(message.stop_reason ? { providerReason: message.stop_reason } : {}),
  };
}
