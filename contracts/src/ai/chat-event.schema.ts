import { z } from 'zod';
import { AIProviderKindSchema } from '../openflow/provider.schema.js';
import { AssistantMessageSchema } from './chat-message.schema.js';
import { BudgetScopeSchema } from '../gateway/budget.contract.js';
import { FaultClassSchema } from './fault.js';

/**
 * What a chat answers, provider-neutral: the events of a stream and the final message. Every
 * provider's reply (streamed or not) becomes this sequence:
 *
 *   started, (text_delta | reasoning_delta | tool_call_started | tool_call_delta | tool_call_finished)*,
 *   usage?, finish, message
 *
 * or ends early with `error`. `message` and `error` are final: nothing follows them. Tool calls
 * keep the provider's order (`index`, from 0 in this answer) and ids; their names are the
 * caller's own, never the rewritten names the provider saw.
 */

/**
 * Why a provider call failed, decided by the gateway from the provider's own error shape. The
 * rules: a request we built wrong is `bad_request_internal` and is never blamed on the user;
 * `bad_request_user` is kept for what the user controls (a filtered prompt, a model they named
 * that does not take an option they set); a context overflow has its own class so a caller can
 * compact and retry.
 */
export const PROVIDER_ERROR_CLASSES = [
  'context_window_exceeded',
  'rate_limited',
  'quota_exceeded',
  'auth_failed',
  'model_unavailable',
  'bad_request_internal',
  'bad_request_user',
  'provider_outage',
  'cancelled',
  /** A spend budget of the call's workspace, flow, run or API token is spent (no provider was asked). */
  'budget_exceeded',
] as const;
export const ProviderErrorClassSchema = z.enum(PROVIDER_ERROR_CLASSES);
export type ProviderErrorClass = z.infer<typeof ProviderErrorClassSchema>;

/** Classes that may pass after a wait: the gateway retries them, then falls back. */
export const TRANSIENT_ERROR_CLASSES: readonly ProviderErrorClass[] = ['rate_limited', 'provider_outage'];

/**
 * A provider failure as it travels: in an `error` event, and as the `details` of a `MeshError`
 * from the request/reply subjects (embed, models). Never holds a credential or a request body.
 */
export const ProviderErrorSchema = z.object({
  class: ProviderErrorClassSchema,
  /** A sentence for a person: what failed, never a secret. */
  message: z.string(),
  /** The provider's HTTP status, when it answered. */
  status: z.int().optional(),
  /** The provider's own error code (`context_length_exceeded`, `overloaded_error`, ...). */
  providerCode: z.string().optional(),
  /** Wait at least this long before trying again (rate limits). */
  retryAfterMs: z.int().nonnegative().optional(),
  provider: AIProviderKindSchema.optional(),
  model: z.string().optional(),
  /**
   * Whose fault it is (`classifyFault`): `user` (their key, their model) or `internal` (ours,
   * it pages). Set by the gateway on every error it answers; absent from older gateways.
   */
  fault: FaultClassSchema.optional(),
  /** For `budget_exceeded`: the budget that is spent (`target` empty for the workspace's). */
  budget: z.object({ scope: BudgetScopeSchema, target: z.string() }).optional(),
  /**
   * The mesh broke the call off, not the provider: the gateway instance stopped, or went silent
   * (no event or keepalive for `CHAT_LOST_AFTER_MS`). Nothing is wrong with the call: asking again
   * (another instance answers) is right, with the same idempotency key.
   */
  interrupted: z.literal(true).optional(),
});
export type ProviderError = z.infer<typeof ProviderErrorSchema>;

/**
 * Token counts, normalized: `inputTokens` counts every prompt token, cached ones included
 * (Anthropic and Bedrock report those separately, OpenAI within); `outputTokens` includes
 * reasoning. `cacheReadTokens`, `cacheWriteTokens` and `reasoningTokens` are parts of those totals.
 */
export const ChatUsageSchema = z.object({
  inputTokens: z.int().nonnegative(),
  outputTokens: z.int().nonnegative(),
  cacheReadTokens: z.int().nonnegative().default(0),
  cacheWriteTokens: z.int().nonnegative().default(0),
  reasoningTokens: z.int().nonnegative().default(0),
  /** Web searches the provider ran for the answer (`webSearch`); absent when none. */
  webSearches: z.int().positive().optional(),
});
export type ChatUsage = z.infer<typeof ChatUsageSchema>;
export type ChatUsageInput = z.input<typeof ChatUsageSchema>;

export const FINISH_REASONS = [
  'stop',
  'length',
  'tool_calls',
  'content_filter',
  'context_window_exceeded',
  'other',
] as const;
export const FinishReasonSchema = z.enum(FINISH_REASONS);
export type FinishReason = z.infer<typeof FinishReasonSchema>;

/** Which provider answers (after fallbacks, maybe not the one asked for first). */
export const ChatStartedEventSchema = z
  .object({
    type: z.literal('started'),
    provider: AIProviderKindSchema,
    resource: z.string(),
    model: z.string(),
    /** 0 for the provider asked for, n for the n-th fallback. */
    fallbackIndex: z.int().nonnegative(),
  })
  .strict();

export const TextDeltaEventSchema = z.object({ type: z.literal('text_delta'), text: z.string() }).strict();

/**
 * Reasoning text as it streams. `signature` (Anthropic's thinking signature) and `redacted`
 * arrive on their own delta; `part` counts reasoning blocks, so a new value starts a new block.
 */
export const ReasoningDeltaEventSchema = z
  .object({
    type: z.literal('reasoning_delta'),
    text: z.string(),
    signature: z.string().optional(),
    redacted: z.string().optional(),
    part: z.int().nonnegative().optional(),
  })
  .strict();

export const ToolCallStartedEventSchema = z
  .object({
    type: z.literal('tool_call_started'),
    index: z.int().nonnegative(),
    id: z.string(),
    name: z.string(),
  })
  .strict();

export const ToolCallDeltaEventSchema = z
  .object({
    type: z.literal('tool_call_delta'),
    index: z.int().nonnegative(),
    id: z.string(),
    /** A fragment of the arguments' JSON text; concatenate per call. */
    arguments: z.string(),
  })
  .strict();

export const ToolCallFinishedEventSchema = z
  .object({
    type: z.literal('tool_call_finished'),
    index: z.int().nonnegative(),
    id: z.string(),
    name: z.string(),
    /** The whole arguments JSON text. */
    arguments: z.string(),
    /** Gemini's thought signature of this call. */
    signature: z.string().optional(),
  })
  .strict();

export const UsageEventSchema = z.object({ type: z.literal('usage'), usage: ChatUsageSchema }).strict();

export const FinishEventSchema = z
  .object({
    type: z.literal('finish'),
    reason: FinishReasonSchema,
    /** The provider's own word (`end_turn`, `STOP`, ...). */
    providerReason: z.string().optional(),
  })
  .strict();

/** Final: the whole answer, as the message model stores it. */
export const ChatCompletedEventSchema = z
  .object({
    type: z.literal('message'),
    message: AssistantMessageSchema,
    usage: ChatUsageSchema.optional(),
    finishReason: FinishReasonSchema,
    provider: AIProviderKindSchema,
    /** The model as the provider named it in its answer (may carry a dated suffix). */
    model: z.string(),
    responseId: z.string().optional(),
  })
  .strict();

/** Final: the chat failed (after retries and fallbacks), or was cancelled. */
export const ChatErrorEventSchema = z
  .object({ type: z.literal('error'), error: ProviderErrorSchema })
  .strict();

/**
 * Not part of the answer: the gateway sends it on a token stream silent for `CHAT_KEEPALIVE_MS`
 * (a model thinking), so a subscriber tells a slow model from a gateway instance that died.
 */
export const ChatKeepaliveEventSchema = z.object({ type: z.literal('keepalive') }).strict();

/** Silence on a token stream after which the gateway sends a keepalive. */
export const CHAT_KEEPALIVE_MS = 2_000;
/** Silence on a token stream after which its gateway instance is taken for dead. */
export const CHAT_LOST_AFTER_MS = 5 * CHAT_KEEPALIVE_MS;

export const ChatEventSchema = z.discriminatedUnion('type', [
  ChatStartedEventSchema,
  TextDeltaEventSchema,
  ReasoningDeltaEventSchema,
  ToolCallStartedEventSchema,
  ToolCallDeltaEventSchema,
  ToolCallFinishedEventSchema,
  UsageEventSchema,
  FinishEventSchema,
  ChatCompletedEventSchema,
  ChatErrorEventSchema,
  ChatKeepaliveEventSchema,
]);
export type ChatEvent = z.infer<typeof ChatEventSchema>;
export type ChatEventType = ChatEvent['type'];
export type ChatCompletedEvent = z.infer<typeof ChatCompletedEventSchema>;
export type ChatErrorEvent = z.infer<typeof ChatErrorEventSchema>;
export type ChatFinalEvent = ChatCompletedEvent | ChatErrorEvent;

export function isFinalChatEvent(event: ChatEvent): event is ChatFinalEvent {
  return event.type === 'message' || event.type === 'error';
}

/**
 * One event on a chat's token stream (`tokenStreamSubject(streamId)`, core NATS). `seq` starts at
 * 0 and has no gaps: a subscriber that sees a gap lost an event and must treat the stream as failed.
 */
export const ChatStreamEnvelopeSchema = z.object({
  streamId: z.string(),
  seq: z.int().nonnegative(),
  event: ChatEventSchema,
});
export type ChatStreamEnvelope = z.infer<typeof ChatStreamEnvelopeSchema>;
