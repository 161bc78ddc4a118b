import type { ChatUsage, ReasoningPart, TextPart, ToolCall } from '@flowmesh/contracts';
import { providerCallError } from '../provider-call.error.js';
import type { ProviderChatResult } from '../provider-adapter.js';
import { openAIFinishReason } from './openai-finish-reason.js';
import { normalizeOpenAIUsage } from './openai-usage.js';
import type { OpenAIAnnotation, OpenAIChatCompletion } from './openai-wire.types.js';

/** Whether an answer cites the web: OpenAI's chat API counts no searches, its citations show one ran. */
export function cites(annotations: readonly OpenAIAnnotation[] | null | undefined): boolean {
  return annotations?.some((annotation) => annotation.type === 'url_citation') === true;
}

/** The usage, counting the search an answer that cites the web ran. */
export function withSearch(usage: ChatUsage | undefined, searched: boolean): ChatUsage | undefined {
  return usage && searched ? { ...usage, webSearches: 1 } : usage;
}

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
  const usage = withSearch(normalizeOpenAIUsage(completion.usage), cites(message.annotations));
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
