import type { ReasoningPart, TextPart, ToolCall } from '@flowmesh/contracts';
import { providerCallError } from '../provider-call.error.js';
import type { ProviderChatResult } from '../provider-adapter.js';
import { openAIFinishReason } from './openai-finish-reason.js';
import { normalizeOpenAIUsage } from './openai-usage.js';
import type { OpenAIChatCompletion } from './openai-wire.types.js';

/** A `chat.completion` body, normalized (pure). */
export function parseOpenAIChatCompletion(json: unknown, vendor: string): ProviderChatResult {
  const completion = (typeof json === 'object' && json !== null ? json : {}) as OpenAIChatCompletion;
  const choice = completion.choices?.[0];
  const message = choice?.message;
  if (!choice || !message) {
    throw providerCallError('provider_outage', `${vendor} answered without a choice`);
  }
  const content: Array<TextPart | ReasoningPart> = [];
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (reasoning) content.push({ type: 'reasoning', text: reasoning });
  const text = message.content ?? message.refusal;
  if (text) content.push({ type: 'text', text });
  const toolCalls: ToolCall[] = (message.tool_calls ?? []).map((call, index) => ({
    id: call.id || `call_${index}`,
    name: call.function?.name ?? '',
    arguments: call.function?.arguments ?? '',
  }));
  const usage = normalizeOpenAIUsage(completion.usage);
  return {
    ...(completion.id ? { id: completion.id } : {}),
    ...(completion.model ? { model: completion.model } : {}),
    content,
    toolCalls,
    ...(usage ? { usage } : {}),
    finishReason:
      message.refusal && !message.content
        ? 'content_filter'
        : openAIFinishReason(choice.finish_reason, toolCalls.length > 0),
    ...(choice.finish_reason ? { providerReason: choice.finish_reason } : {}),
  };
}
