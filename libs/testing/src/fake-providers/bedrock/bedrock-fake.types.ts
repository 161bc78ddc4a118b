/** Bedrock Converse wire shapes the fake answers with. */

export type BedrockFakeContentBlock =
  | { text: string }
  | { toolUse: { toolUseId: string; name: string; input: Record<string, unknown> } }
  | { reasoningContent: { reasoningText: { text: string; signature?: string } } }
  | { reasoningContent: { redactedContent: string } };

export type BedrockFakeStopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'stop_sequence'
  | 'guardrail_intervened'
  | 'content_filtered'
  | 'model_context_window_exceeded';

export interface BedrockFakeUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

/** One assistant turn; rendered as a Converse JSON body or as ConverseStream event frames. */
export interface BedrockFakeTurn {
  content: BedrockFakeContentBlock[];
  stopReason?: BedrockFakeStopReason;
  usage?: Partial<BedrockFakeUsage>;
  /** Characters per streamed delta; default 8. */
  deltaSize?: number;
}

/** An HTTP error before the stream: `x-amzn-errortype` names it, the body says why. */
export interface BedrockFakeErrorReply {
  error: {
    status: number;
    /** `ValidationException`, `ThrottlingException`, `AccessDeniedException`, `ResourceNotFoundException`, ... */
    type: string;
    message: string;
    headers?: Record<string, string>;
  };
}

/** A stream that starts well and then sends an exception frame. */
export interface BedrockFakeStreamFailure {
  streamThenFail: {
    turn: BedrockFakeTurn;
    afterEvents: number;
    /** `throttlingException`, `modelStreamErrorException`, `internalServerException`, `validationException`, `serviceUnavailableException`. */
    exceptionType: string;
    message: string;
  };
}

/** Sends the headers and `messageStart`, then nothing until the client hangs up. */
export interface BedrockFakeSilence {
  silentStream: true;
}

export type BedrockFakeReply =
  BedrockFakeTurn | BedrockFakeErrorReply | BedrockFakeStreamFailure | BedrockFakeSilence;

/**
 * An `InvokeModel` answer for an embedding model, rendered in the model family's own body:
 * Titan text (`{ embedding, inputTextTokenCount }`, v2 adding `embeddingsByType`) or Cohere embed
 * (`{ id, texts, embeddings, response_type }`). `embeddings` holds one vector per text the request
 * carried (Titan: exactly one). `inputTokens` goes into `x-amzn-bedrock-input-token-count` (and
 * Titan's `inputTextTokenCount`); default: one per 4 characters, at least 1 per text.
 */
export interface BedrockFakeEmbeddingReply {
  embeddings: number[][];
  inputTokens?: number;
}

/** Any other `InvokeModel` answer: this JSON body as it is. */
export interface BedrockFakeInvokeBody {
  body: unknown;
  inputTokens?: number;
  outputTokens?: number;
}

export type BedrockFakeInvokeReply =
  BedrockFakeEmbeddingReply | BedrockFakeInvokeBody | BedrockFakeErrorReply;

/** One entry of `ListFoundationModels` (`FoundationModelSummary`). */
export interface BedrockFakeModelSummary {
  modelId: string;
  modelName?: string;
  providerName: string;
  inputModalities?: Array<'TEXT' | 'IMAGE' | 'EMBEDDING'>;
  outputModalities?: Array<'TEXT' | 'IMAGE' | 'EMBEDDING'>;
  responseStreamingSupported?: boolean;
  customizationsSupported?: Array<'FINE_TUNING' | 'CONTINUED_PRE_TRAINING' | 'DISTILLATION'>;
  inferenceTypesSupported?: Array<'ON_DEMAND' | 'PROVISIONED' | 'INFERENCE_PROFILE'>;
  modelLifecycle?: { status: 'ACTIVE' | 'LEGACY' };
}

export type BedrockFakeModelsReply = { models: BedrockFakeModelSummary[] } | BedrockFakeErrorReply;
