import { z } from 'zod';
import {
  ChatRequestSchema,
  HttpUrlSchema,
  ProviderReferenceSchema,
  UrlPartSchema,
} from '../ai/chat-request.schema.js';
import { RecordingRefSchema } from '../ai/recording.schema.js';
import {
  AI_DECISION_PROVIDER_KINDS,
  AiDecisionQuestionsSchema,
  AiDecisionStateSchema,
  DecisionAnswerSchema,
  DecisionUsageSchema,
} from '../openflow/ai-decision.schema.js';
import { AIProviderKindSchema } from '../openflow/provider.schema.js';
import { WorkspaceIdSchema } from '../registry/access-path.js';
import { ActorSchema } from '../registry/identity.schema.js';
import {
  createContractClient,
  defineRequest,
  SAFE_TO_REPEAT,
  tokenStreamSubject,
  type RequestTransport,
} from '../messaging/contract.js';

/**
 * The llm-gateway's internal API. A chat streams: the caller picks a stream id, subscribes to
 * `tokenStreamSubject(streamId)` (core NATS), then asks `gateway.chat.start`; the gateway checks
 * the request and the caller's access to the provider resource, replies, and publishes
 * `ChatStreamEnvelope`s on that subject until a final `message` or `error` event. `gateway.chat.cancel`
 * stops a chat from any replica: the one running it aborts the upstream request and ends the
 * stream with an `error` event of class `cancelled`. `gatewayChat` in @flowmesh/gateway-chat does all
 * of this behind an `AsyncIterable<ChatEvent>`.
 *
 * Provider failures on the request/reply subjects are `MeshError`s whose `details` is a
 * `ProviderError` (branch on `details.class`).
 */

const STREAM_ID = /^[A-Za-z0-9_-]{8,128}$/;
export const ChatStreamIdSchema = z
  .string()
  .regex(STREAM_ID, "must be 8 to 128 letters, digits, '_' or '-' (one subject token)");

export const StartChatRequestSchema = ChatRequestSchema.extend({ streamId: ChatStreamIdSchema });
export type StartChatRequest = z.infer<typeof StartChatRequestSchema>;
export type StartChatRequestInput = z.input<typeof StartChatRequestSchema>;

export const StartChatReplySchema = z.object({
  streamId: z.string(),
  /** Relative subject the events are published on. */
  subject: z.string(),
});
export type StartChatReply = z.infer<typeof StartChatReplySchema>;

export const CancelChatRequestSchema = z.object({ streamId: ChatStreamIdSchema }).strict();
export const CancelChatReplySchema = z.object({ accepted: z.boolean() });

/** Relative subject on which the replica running a chat listens for its cancellation. */
export function chatCancelSignalSubject(streamId: string): string {
  return `${tokenStreamSubject(streamId)}.cancel`;
}

export const EMBEDDING_ENCODINGS = ['float', 'base64'] as const;

/**
 * What texts are embedded for, where the model is told (Cohere's `input_type`, Gemini's
 * `taskType`); others ignore it. Cohere's names, as OpenAI-style gateways take them.
 */
export const EMBEDDING_INPUT_TYPES = [
  'search_document',
  'search_query',
  'classification',
  'clustering',
] as const;
export type EmbeddingInputType = (typeof EMBEDDING_INPUT_TYPES)[number];

export const EmbedRequestSchema = z
  .object({
    actor: ActorSchema,
    workspace: WorkspaceIdSchema,
    provider: ProviderReferenceSchema,
    input: z.array(z.string()).min(1, 'needs at least one input').max(2048),
    /** Shorter vectors, where the model supports it. */
    dimensions: z.int().positive().optional(),
    /** Default: documents for Cohere (`search_document`), nothing said to Gemini. */
    inputType: z.enum(EMBEDDING_INPUT_TYPES).optional(),
  })
  .strict();
export type EmbedRequest = z.infer<typeof EmbedRequestSchema>;

export const EmbedReplySchema = z.object({
  /** One vector per input, in input order. */
  embeddings: z.array(z.array(z.number())),
  model: z.string(),
  usage: z.object({ inputTokens: z.int().nonnegative() }),
});
export type EmbedReply = z.infer<typeof EmbedReplySchema>;

/**
 * One call to a decision model (TypeSafe's Jev, Cloudflare's Clef, OpenAI's Decisions API): typed
 * questions about a state, each answered with calibrated probabilities instead of text (OpenFlow
 * `aidecision`). Every rule of the questions is checked here, before any provider is called.
 */
export const DecideRequestSchema = z
  .object({
    actor: ActorSchema,
    workspace: WorkspaceIdSchema,
    provider: ProviderReferenceSchema.extend({ kind: z.enum(AI_DECISION_PROVIDER_KINDS) }),
    state: AiDecisionStateSchema,
    questions: AiDecisionQuestionsSchema,
    /** The run records its answers or replays them (`RecordingRef`). */
    recording: RecordingRefSchema.optional(),
  })
  .strict();
export type DecideRequest = z.infer<typeof DecideRequestSchema>;

export const DecideReplySchema = z.object({
  /** One answer per question, by the question's name, normalized whichever provider answered. */
  answers: z.record(z.string(), DecisionAnswerSchema),
  /** The model as the provider named it. */
  model: z.string(),
  usage: DecisionUsageSchema,
});
export type DecideReply = z.infer<typeof DecideReplySchema>;

/**
 * The body of `POST /v1/decisions`, the llm-gateway's route for direct clients: the provider is
 * the resource named in `X-Flowmesh-Provider-Resource` (as for `/v1/chat/completions`), its model
 * the kind's default unless given. Answered with a `DecideReply`.
 */
export const DecideHttpRequestSchema = z
  .object({
    model: z.string().min(1).max(256).optional(),
    state: AiDecisionStateSchema,
    questions: AiDecisionQuestionsSchema,
  })
  .strict();
export type DecideHttpRequest = z.infer<typeof DecideHttpRequestSchema>;

/**
 * One image generated by a model (`aiagent` with `output_type: image`). The image never crosses
 * NATS (its 1 MB limit): the caller names where it goes with a signed PUT link to its own object
 * storage, which the gateway, holding no storage credentials, uploads to through its SSRF guard.
 */
export const GenerateImageRequestSchema = z
  .object({
    actor: ActorSchema,
    workspace: WorkspaceIdSchema,
    provider: ProviderReferenceSchema,
    prompt: z.string().min(1, 'must not be empty').max(100_000),
    /** Instructions for the model (the step's system prompt). */
    system: z.string().max(100_000).optional(),
    /** Images to start from (an edit), as links the gateway fetches like a chat's `url` parts. */
    images: z.array(UrlPartSchema).max(8, 'at most 8 images').optional(),
    temperature: z.number().min(0).max(2).optional(),
    upload: z
      .object({
        /** A signed PUT link (`http:` or `https:`) valid for a few minutes. */
        url: HttpUrlSchema,
      })
      .strict(),
    /** Names the call for `gateway.image.cancel`: a caller that gives up stops the provider's work. */
    cancelId: ChatStreamIdSchema.optional(),
  })
  .strict();
export type GenerateImageRequest = z.infer<typeof GenerateImageRequestSchema>;

export const CancelImageRequestSchema = z.object({ cancelId: ChatStreamIdSchema }).strict();
export const CancelImageReplySchema = z.object({ accepted: z.boolean() });

/** Relative subject on which the replica drawing an image listens for its cancellation. */
export function imageCancelSignalSubject(cancelId: string): string {
  return `gateway.image.cancel_signal.${cancelId}`;
}

export const GenerateImageReplySchema = z.object({
  /** What was uploaded: `image/png`, `image/jpeg` or `image/webp`. */
  mediaType: z.string(),
  bytes: z.int().positive(),
  /** The model as the provider named it. */
  model: z.string(),
  /** What the model said beside the image, when it said anything. */
  text: z.string().optional(),
  usage: z.object({ inputTokens: z.int().nonnegative(), outputTokens: z.int().nonnegative() }),
});
export type GenerateImageReply = z.infer<typeof GenerateImageReplySchema>;

export const ListModelsRequestSchema = z
  .object({
    actor: ActorSchema,
    workspace: WorkspaceIdSchema,
    provider: z
      .object({
        kind: AIProviderKindSchema,
        resource: z
          .string()
          .min(1)
          .max(300)
          .transform((value) => value.replace(/^\$res:/, '')),
      })
      .strict(),
  })
  .strict();
export type ListModelsRequest = z.infer<typeof ListModelsRequestSchema>;

export const ModelInfoSchema = z.object({
  id: z.string(),
  ownedBy: z.string().optional(),
  /** From the gateway's table; absent when the table does not know the model. */
  contextWindow: z.int().positive().optional(),
});
export type ModelInfo = z.infer<typeof ModelInfoSchema>;

export const ListModelsReplySchema = z.object({ models: z.array(ModelInfoSchema) });
export type ListModelsReply = z.infer<typeof ListModelsReplySchema>;

export const DEFAULT_CONTEXT_WINDOW = 128_000;

export const ContextWindowRequestSchema = z
  .object({
    model: z.string().min(1).max(256),
    kind: AIProviderKindSchema.optional(),
    /** A per-call override wins over the table (a custom deployment). */
    override: z.int().positive().optional(),
  })
  .strict();
export type ContextWindowRequest = z.infer<typeof ContextWindowRequestSchema>;

export const ContextWindowReplySchema = z.object({
  model: z.string(),
  contextWindow: z.int().positive(),
  /** `table`: a known model; `default`: unknown, 128000; `override`: the caller's value. */
  source: z.enum(['table', 'default', 'override']),
});
export type ContextWindowReply = z.infer<typeof ContextWindowReplySchema>;

/** Starting a chat resolves credentials from the registry before the reply. */
const START_TIMEOUT_MS = 15_000;
/** An embedding call waits for the provider, retries included. */
const EMBED_TIMEOUT_MS = 120_000;
/** An image call: a model drawing takes up to a minute or two, and the upload. */
const IMAGE_TIMEOUT_MS = 300_000;

export const gatewayContract = {
  startChat: defineRequest('gateway.chat.start', StartChatRequestSchema, StartChatReplySchema, {
    timeoutMs: START_TIMEOUT_MS,
  }),
  cancelChat: defineRequest('gateway.chat.cancel', CancelChatRequestSchema, CancelChatReplySchema),
  embed: defineRequest('gateway.embed', EmbedRequestSchema, EmbedReplySchema, {
    timeoutMs: EMBED_TIMEOUT_MS,
  }),
  decide: defineRequest('gateway.decide', DecideRequestSchema, DecideReplySchema, {
    timeoutMs: EMBED_TIMEOUT_MS,
  }),
  /** Image models take tens of seconds; retries included. */
  generateImage: defineRequest(
    'gateway.image.generate',
    GenerateImageRequestSchema,
    GenerateImageReplySchema,
    {
      timeoutMs: IMAGE_TIMEOUT_MS,
    },
  ),
  /** Stops `generateImage` named by its `cancelId` on whichever replica draws it (no upload follows). */
  cancelImage: defineRequest('gateway.image.cancel', CancelImageRequestSchema, CancelImageReplySchema),
  listModels: defineRequest('gateway.models.list', ListModelsRequestSchema, ListModelsReplySchema, {
    ...SAFE_TO_REPEAT,
    timeoutMs: 30_000,
  }),
  contextWindow: defineRequest(
    'gateway.context_window',
    ContextWindowRequestSchema,
    ContextWindowReplySchema,
    SAFE_TO_REPEAT,
  ),
} as const;

export function createGatewayClient(transport: RequestTransport) {
  return createContractClient(gatewayContract, transport);
}
export type GatewayClient = ReturnType<typeof createGatewayClient>;
