import type { ReasoningPart, TextPart, ToolCall } from '@flowmesh/contracts';
import type { ProviderChatResult } from '../provider-adapter.js';
import { providerCallError } from '../provider-call.error.js';
import { GeminiChunkReader } from './gemini-chunk.reader.js';
import { geminiFinishReason } from './gemini-finish-reason.js';
import type { GeminiResponse } from './gemini-wire.types.js';

/** A `generateContent` response, normalized (pure): the same reading as a stream, folded into one message. */
export function parseGeminiResponse(json: unknown): ProviderChatResult {
  if (typeof json !== 'object' || json === null)
    throw providerCallError('provider_outage', 'Google AI answered with a body that is not an object');
  const response = json as GeminiResponse;
  const reader = new GeminiChunkReader();
  const content: Array<TextPart | ReasoningPart> = [];
  const toolCalls: ToolCall[] = [];
  let id: string | undefined;
  let model: string | undefined;
  let usage: ProviderChatResult['usage'];
  const reasoningByPart = new Map<number, { type: 'reasoning'; text: string; signature?: string }>();
  for (const event of reader.read(response)) {
    if (event.type === 'response') ({ id, model } = event);
    else if (event.type === 'text') {
      const last = content.at(-1);
      if (last?.type === 'text') last.text += event.text;
      else content.push({ type: 'text', text: event.text });
    } else if (event.type === 'reasoning') {
      const part = reasoningByPart.get(event.part ?? 0);
      if (part) {
        part.text += event.text;
        if (event.signature) part.signature = event.signature;
      } else {
        const created = {
          type: 'reasoning' as const,
          text: event.text,
          ...(event.signature ? { signature: event.signature } : {}),
        };
        reasoningByPart.set(event.part ?? 0, created);
        content.push(created);
      }
    } else if (event.type === 'tool_call_start') {
      toolCalls.push({
        id: event.id,
        name: event.name,
        arguments: '',
        ...(event.signature ? { signature: event.signature } : {}),
      });
    } else if (event.type === 'tool_call_delta') {
      const call = toolCalls[event.index];
      if (call) call.arguments += event.arguments;
    } else if (event.type === 'usage') usage = event.usage;
  }
  if (!response.candidates?.length && !reader.blockReason)
    throw providerCallError('provider_outage', 'Google AI answered without a candidate');
  const providerReason = reader.blockReason ?? reader.finishReason;
  return {
    ...(id ? { id } : {}),
    ...(model ? { model } : {}),
    content,
    toolCalls,
    ...(usage ? { usage } : {}),
    finishReason: reader.blockReason
      ? 'content_filter'
      : geminiFinishReason(reader.finishReason, toolCalls.length > 0),
    ...(providerReason ? { providerReason } : {}),
  };
}
