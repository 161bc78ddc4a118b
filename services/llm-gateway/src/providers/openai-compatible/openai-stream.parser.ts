import type { ProviderError } from '@flowmesh/contracts';
import type { ProviderStreamEvent, StreamFrame } from '../provider-adapter.js';
import { openAIFinishReason } from './openai-finish-reason.js';
import { cites, withSearch } from './openai-response.parser.js';
import { normalizeOpenAIUsage } from './openai-usage.js';
import type { OpenAIChatChunk } from './openai-wire.types.js';

/**
 * Chat Completions SSE chunks, normalized. Tolerates what vendors do differently: chunks with
 * `choices: []` (Azure's filter results, the usage chunk), usage on the last chunk that still has
 * choices (Together, Mistral) or under `x_groq`, `reasoning_content` (DeepSeek) and `reasoning`
 * (OpenRouter, Groq). Only choice 0 is read: the gateway never asks for `n > 1`.
 */
export async function* parseOpenAIStream(
  frames: AsyncIterable<StreamFrame>,
  vendor: string,
  classifyStreamError: (payload: unknown) => ProviderError,
): AsyncIterable<ProviderStreamEvent> {
  let announced = false;
  let finishReason: string | null | undefined;
  let sawToolCalls = false;
  let searched = false;
  const started = new Set<number>();
  for await (const frame of frames) {
    if (frame.data === '[DONE]') break;
    let chunk: OpenAIChatChunk;
    try {
      chunk = JSON.parse(frame.data) as OpenAIChatChunk;
    } catch {
      yield {
        type: 'error',
        error: { class: 'provider_outage', message: `${vendor} sent a stream chunk that is not JSON` },
      };
      return;
    }
    if (chunk.error !== undefined) {
      yield { type: 'error', error: classifyStreamError(chunk) };
      return;
    }
    if (!announced && (chunk.id || chunk.model)) {
      announced = true;
      yield {
        type: 'response',
        ...(chunk.id ? { id: chunk.id } : {}),
        ...(chunk.model ? { model: chunk.model } : {}),
      };
    }
    const choice = chunk.choices?.find((entry) => (entry.index ?? 0) === 0);
    const delta = choice?.delta;
    if (delta) {
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (reasoning) yield { type: 'reasoning', text: reasoning };
      if (delta.content) yield { type: 'text', text: delta.content };
      if (delta.refusal) yield { type: 'text', text: delta.refusal };
      if (cites(delta.annotations)) searched = true;
      for (const call of delta.tool_calls ?? []) {
        const index = call.index ?? 0;
        if (!started.has(index)) {
          started.add(index);
          sawToolCalls = true;
          yield {
            type: 'tool_call_start',
            index,
            id: call.id || `call_${index}`,
            name: call.function?.name ?? '',
          };
        }
        if (call.function?.arguments)
          yield { type: 'tool_call_delta', index, arguments: call.function.arguments };
      }
    }
    if (choice?.finish_reason) finishReason = choice.finish_reason;
    const usage = withSearch(normalizeOpenAIUsage(chunk.usage ?? chunk.x_groq?.usage), searched);
    if (usage) yield { type: 'usage', usage };
  }
  if (finishReason === undefined || finishReason === null) {
    yield {
      type: 'error',
      error: { class: 'provider_outage', message: `${vendor} ended the stream before a finish reason` },
    };
    return;
  }
  yield {
    type: 'finish',
    reason: openAIFinishReason(finishReason, sawToolCalls),
    providerReason: finishReason,
  };
}
