import type { ProviderStreamEvent, StreamFrame } from '../provider-adapter.js';
import { GeminiChunkReader } from './gemini-chunk.reader.js';
import { classifyGeminiStreamError } from './gemini-error.classifier.js';
import { geminiFinishReason } from './gemini-finish-reason.js';
import type { GeminiResponse } from './gemini-wire.types.js';

/**
 * `streamGenerateContent?alt=sse`, normalized. There is no `[DONE]`: the stream ends after the
 * chunk with a `finishReason` (or a prompt refused in `promptFeedback`); one that ends without
 * either was cut.
 */
export async function* parseGeminiStream(
  frames: AsyncIterable<StreamFrame>,
): AsyncIterable<ProviderStreamEvent> {
  const reader = new GeminiChunkReader();
  for await (const frame of frames) {
    let chunk: GeminiResponse;
    try {
      chunk = JSON.parse(frame.data) as GeminiResponse;
    } catch {
      yield {
        type: 'error',
        error: { class: 'provider_outage', message: 'Google AI sent a stream chunk that is not JSON' },
      };
      return;
    }
    if (chunk.error !== undefined) {
      yield { type: 'error', error: classifyGeminiStreamError(chunk) };
      return;
    }
    yield* reader.read(chunk);
  }
  if (reader.blockReason) {
    yield { type: 'finish', reason: 'content_filter', providerReason: reader.blockReason };
    return;
  }
  if (reader.finishReason === undefined) {
    yield {
      type: 'error',
      error: { class: 'provider_outage', message: 'Google AI ended the stream before a finish reason' },
    };
    return;
  }
  yield {
    type: 'finish',
    reason: geminiFinishReason(reader.finishReason, reader.calledFunctions),
    providerReason: reader.finishReason,
  };
}
