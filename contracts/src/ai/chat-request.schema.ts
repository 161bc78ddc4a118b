import { z } from 'zod';
import { AIProviderKindSchema, InlineProviderResourceSchema } from '../openflow/provider.schema.js';
import { WorkspaceIdSchema } from '../registry/access-path.js';
import { ActorSchema } from '../registry/identity.schema.js';
import {
  AssistantMessageSchema,
  AttachmentPartSchema,
  SummaryMessageSchema,
  TextPartSchema,
  ToolResultMessageSchema,
  UserMessageSchema,
} from './chat-message.schema.js';
import { RecordingRefSchema } from './recording.schema.js';

/**
 * The normalized chat request the llm-gateway takes (over NATS, and what its HTTP proxy turns an
 * OpenAI-shaped body into). It is the stored message model of `chat-message.schema.ts` plus what
 * only a request needs:
 *
 * - inline data parts: the stored model keeps attachments as object references, but the gateway
 *   owns no object storage, so a caller (the agent runtime) loads an attachment and sends it as an
 *   `inline_data` part (base64). An `attachment` part reaching the gateway is a request we built
 *   wrong and fails as `bad_request_internal`;
 * - URL parts: an image or PDF by `http(s)` URL, which the gateway fetches itself (through its
 *   SSRF guard, size and type checked) and sends as inline data; no adapter ever sees one. Like
 *   `inline_data` it exists only in a request: a stored history keeps attachments by reference;
 * - prompt-cache breakpoints (`cache`) on the system prompt and on messages, which providers with
 *   explicit caching (Anthropic, Bedrock) turn into their markers and the others ignore;
 * - the settings: tools, tool choice, response format, sampling, reasoning effort.
 */

/** A prompt-cache breakpoint: everything up to and including the marked item is cacheable. */
export const CacheMarkerSchema = z.object({ ttl: z.enum(['5m', '1h']).optional() }).strict();
export type CacheMarker = z.infer<typeof CacheMarkerSchema>;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Bytes sent with the request: an image (`image/png`, ...) or a document (`application/pdf`). */
export const InlineDataPartSchema = z
  .object({
    type: z.literal('inline_data'),
    mediaType: z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a media type such as image/png'),
    /** Standard base64, no `data:` prefix. */
    data: z.string().min(1, 'must not be empty').regex(BASE64, 'must be base64'),
    filename: z.string().min(1).max(255).optional(),
  })
  .strict();
export type InlineDataPart = z.infer<typeof InlineDataPartSchema>;

/** The media types a URL part may resolve to (what every provider with vision reads). */
export const URL_PART_MEDIA_TYPES = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'application/pdf',
] as const;

/** A URL the gateway fetches from or sends to (through its SSRF guard). */
export const HttpUrlSchema = z
  .string()
  .max(8192, 'must be at most 8192 characters')
  .regex(/^https?:\/\/[^\s]+$/i, 'must be an http: or https: URL');

/**
 * An image or PDF the gateway fetches by URL (`http:` or `https:` only) and sends as inline data.
 * `mediaType` says what the content must be: one of `URL_PART_MEDIA_TYPES`, or `image/*` for any
 * of the images; absent, any of them. The content's real type (from its bytes) is what the
 * provider is told.
 */
export const UrlPartSchema = z
  .object({
    type: z.literal('url'),
    url: HttpUrlSchema,
    mediaType: z.enum([...URL_PART_MEDIA_TYPES, 'image/*']).optional(),
    filename: z.string().min(1).max(255).optional(),
  })
  .strict();
export type UrlPart = z.infer<typeof UrlPartSchema>;

export const RequestUserPartSchema = z.discriminatedUnion('type', [
  TextPartSchema,
  InlineDataPartSchema,
  UrlPartSchema,
  AttachmentPartSchema,
]);
export type RequestUserPart = z.infer<typeof RequestUserPartSchema>;

const cache = { cache: CacheMarkerSchema.optional() };

export const RequestUserMessageSchema = z.strictObject({
  ...UserMessageSchema.shape,
  content: z.array(RequestUserPartSchema).min(1, 'a user message needs at least one part'),
  ...cache,
});
export const RequestAssistantMessageSchema = z.strictObject({ ...AssistantMessageSchema.shape, ...cache });
export const RequestToolResultMessageSchema = z.strictObject({
  ...ToolResultMessageSchema.shape,
  content: z.array(RequestUserPartSchema),
  ...cache,
});
export const RequestSummaryMessageSchema = z.strictObject({ ...SummaryMessageSchema.shape, ...cache });

export type RequestUserMessage = z.infer<typeof RequestUserMessageSchema>;
export type RequestAssistantMessage = z.infer<typeof RequestAssistantMessageSchema>;
export type RequestToolResultMessage = z.infer<typeof RequestToolResultMessageSchema>;
export type RequestSummaryMessage = z.infer<typeof RequestSummaryMessageSchema>;

/** A message of a chat request: a stored `ChatMessage`, or one with inline data and cache markers. */
export const ChatRequestMessageSchema = z
  .discriminatedUnion('role', [
    RequestUserMessageSchema,
    RequestAssistantMessageSchema,
    RequestToolResultMessageSchema,
    RequestSummaryMessageSchema,
  ])
  .superRefine((message, ctx) => {
    if (message.role === 'assistant' && message.content.length === 0 && !message.toolCalls?.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['content'],
        message: 'an assistant message needs content or tool calls',
      });
    }
  });
export type ChatRequestMessage = z.infer<typeof ChatRequestMessageSchema>;

export const SystemBlockSchema = z.object({ text: z.string(), ...cache }).strict();
export type SystemBlock = z.infer<typeof SystemBlockSchema>;

/** A plain string, or blocks when some of it carries a cache breakpoint. */
export const SystemPromptSchema = z.union([z.string(), z.array(SystemBlockSchema)]);
export type SystemPrompt = z.infer<typeof SystemPromptSchema>;

/** A JSON Schema object (what a tool takes, what a structured answer must be). */
export const JsonSchemaObjectSchema = z.record(z.string(), z.unknown());
export type JsonSchemaObject = z.infer<typeof JsonSchemaObjectSchema>;

/**
 * A tool the model may call. `name` is the caller's own (it may hold dots, spaces, any script);
 * the gateway rewrites it for the provider and maps it back in every event and in the final
 * message, so the caller only ever sees its own names.
 */
export const ToolDefinitionSchema = z
  .object({
    name: z.string().min(1, 'must not be empty').max(256),
    description: z.string().max(16_384).optional(),
    parameters: JsonSchemaObjectSchema,
    /** Ask for strict schema adherence where the provider has it (OpenAI `strict`). */
    strict: z.boolean().optional(),
  })
  .strict();
export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>;

export const ToolChoiceSchema = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.literal('tool'), name: z.string().min(1) }).strict(),
]);
export type ToolChoice = z.infer<typeof ToolChoiceSchema>;

/**
 * What the answer must look like. `json_schema` is native where the provider has it (OpenAI
 * family, Gemini) and a forced tool where it does not (Anthropic, Bedrock); either way the answer
 * arrives as text holding the JSON.
 */
export const ResponseFormatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }).strict(),
  z.object({ type: z.literal('json_object') }).strict(),
  z
    .object({
      type: z.literal('json_schema'),
      name: z
        .string()
        .regex(/^[a-zA-Z0-9_-]{1,64}$/, "must be letters, digits, '_' or '-' (at most 64)")
        .default('response'),
      description: z.string().optional(),
      schema: JsonSchemaObjectSchema,
      strict: z.boolean().optional(),
    })
    .strict(),
]);
export type ResponseFormat = z.infer<typeof ResponseFormatSchema>;

export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high'] as const;
export const ReasoningEffortSchema = z.enum(REASONING_EFFORTS);
export type ReasoningEffort = z.infer<typeof ReasoningEffortSchema>;

/**
 * Which provider answers: the kind, the credentials resource (`f/ai/openai`, a leading `$res:` is
 * accepted, or the resource's fields inline, which only the gateway reads) and the model (a
 * deployment name for Azure, an inference profile for Bedrock).
 */
export const ProviderReferenceSchema = z
  .object({
    kind: AIProviderKindSchema,
    resource: z.union([
      z
        .string()
        .min(1, 'must not be empty')
        .max(300)
        .transform((value) => value.replace(/^\$res:/, '')),
      InlineProviderResourceSchema,
    ]),
    model: z.string().min(1, 'must not be empty').max(256),
  })
  .strict();
export type ProviderReference = z.infer<typeof ProviderReferenceSchema>;

/** Everything about one model call that does not depend on which provider answers it. */
export const chatParameterFields = {
  system: SystemPromptSchema.optional(),
  messages: z.array(ChatRequestMessageSchema).min(1, 'a chat needs at least one message'),
  tools: z.array(ToolDefinitionSchema).max(512).optional(),
  toolChoice: ToolChoiceSchema.optional(),
  /** Allow several tool calls in one answer (default: the provider's default, usually yes). */
  parallelToolCalls: z.boolean().optional(),
  responseFormat: ResponseFormatSchema.optional(),
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().min(0).max(1).optional(),
  maxOutputTokens: z.int().positive().optional(),
  stop: z.array(z.string().min(1)).max(16).optional(),
  reasoningEffort: ReasoningEffortSchema.optional(),
  /**
   * Let the model search the web with the provider's own search (Anthropic's `web_search` server
   * tool, Gemini's Google Search grounding, OpenAI's search models through `web_search_options`).
   * A provider without one refuses the call. The answer's usage counts the searches.
   */
  webSearch: z.boolean().optional(),
  /** Stream from the provider (default true). Events reach the caller as a stream either way. */
  stream: z.boolean().optional(),
};

export const ChatParametersSchema = z.object(chatParameterFields).strict();
export type ChatParameters = z.infer<typeof ChatParametersSchema>;

/**
 * A chat over the gateway's NATS API: who asks (the caller's token and workspace: credentials are
 * read as that identity), which provider, and the call itself.
 */
export const ChatRequestSchema = z
  .object({
    actor: ActorSchema,
    workspace: WorkspaceIdSchema,
    provider: ProviderReferenceSchema,
    ...chatParameterFields,
    /** The model's context window when the table does not know it (a custom deployment). */
    contextWindow: z.int().positive().optional(),
    /**
     * Tried in order when the provider before is rate limited, down, out of quota, or has no such model, after
     * its own retries. A context-window error moves only to a model with a larger window.
     */
    fallbacks: z.array(ProviderReferenceSchema).max(8).optional(),
    /** Tracing and audit: `gen_ai.conversation.id`. */
    conversationId: z.string().max(256).optional(),
    /** The run records its answers or replays them (`RecordingRef`). */
    recording: RecordingRefSchema.optional(),
    /**
     * The run (its root job id) and the flow (its path) whose budgets this call counts toward,
     * beside the workspace's and the API token's (`gatewayBudgetContract`); agent steps send theirs.
     */
    budget: z
      .object({ run: z.string().min(1).max(128).optional(), flow: z.string().min(1).max(300).optional() })
      .strict()
      .optional(),
    /**
     * The same on every attempt of one model call (an agent step's call asked again after its
     * replica died): sent to HTTP providers as `Idempotency-Key`, so one that deduplicates answers once.
     */
    idempotencyKey: z
      .string()
      .min(1)
      .max(255)
      .regex(/^[\x21-\x7e]+$/, 'printable ASCII, no spaces')
      .optional(),
  })
  .strict();
export type ChatRequest = z.infer<typeof ChatRequestSchema>;
export type ChatRequestInput = z.input<typeof ChatRequestSchema>;
