import type { ProviderStreamEvent } from '../provider-adapter.js';
import { normalizeGeminiUsage } from './gemini-usage.js';
import type { GeminiResponse } from './gemini-wire.types.js';

/**
 * Reads Gemini responses in order (one whole response, or the chunks of a stream: each chunk is a
 * complete `GenerateContentResponse`) into normalized pieces. Gemini sends a function call whole
 * and usually without an id, so the call gets one here (`call_<response>_<n>`) and starts, carries
 * its whole arguments, and ends in one go.
 */
export class GeminiChunkReader {
  private announced = false;
  private toolCount = 0;
  private reasoningPart = -1;
  private inThought = false;
  /** Google Search queries the answer was grounded with, so far. */
  private webSearches = 0;
  finishReason: string | undefined;
  blockReason: string | undefined;

  get calledFunctions(): boolean {
    return this.toolCount > 0;
  }

  *read(chunk: GeminiResponse): Iterable<ProviderStreamEvent> {
    if (!this.announced && (chunk.responseId || chunk.modelVersion)) {
      this.announced = true;
      yield {
        type: 'response',
        ...(chunk.responseId ? { id: chunk.responseId } : {}),
        ...(chunk.modelVersion ? { model: chunk.modelVersion } : {}),
      };
    }
    if (chunk.promptFeedback?.blockReason) this.blockReason = chunk.promptFeedback.blockReason;
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.functionCall) {
        this.inThought = false;
        const index = this.toolCount++;
        const id =
          part.functionCall.id || (chunk.responseId ? `call_${chunk.responseId}_${index}` : `call_${index}`);
        yield {
          type: 'tool_call_start',
          index,
          id,
          name: part.functionCall.name ?? '',
          ...(part.thoughtSignature ? { signature: part.thoughtSignature } : {}),
        };
        yield { type: 'tool_call_delta', index, arguments: JSON.stringify(part.functionCall.args ?? {}) };
        yield { type: 'tool_call_end', index };
      } else if (part.thought) {
        if (!this.inThought) this.reasoningPart++;
        this.inThought = true;
        yield {
          type: 'reasoning',
          text: part.text ?? '',
          part: this.reasoningPart,
          ...(part.thoughtSignature ? { signature: part.thoughtSignature } : {}),
        };
      } else if (part.text !== undefined) {
        this.inThought = false;
        if (part.text !== '') yield { type: 'text', text: part.text };
        // Gemini may sign a plain text part; the signature is kept as a reasoning part of its own.
        if (part.thoughtSignature)
          yield { type: 'reasoning', text: '', signature: part.thoughtSignature, part: ++this.reasoningPart };
      }
    }
    if (candidate?.finishReason) this.finishReason = candidate.finishReason;
    this.webSearches = Math.max(
      this.webSearches,
      candidate?.groundingMetadata?.webSearchQueries?.length ?? 0,
    );
    const usage = normalizeGeminiUsage(chunk.usageMetadata);
    if (usage)
      yield {
        type: 'usage',
        usage: this.webSearches > 0 ? { ...usage, webSearches: this.webSearches } : usage,
      };
  }
}
