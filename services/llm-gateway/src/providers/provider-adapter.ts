import type {
  AIProviderKind,
  ChatParameters,
  ChatUsage,
  EmbeddingInputType,
  FinishReason,
  ProviderError,
  ReasoningPart,
  TextPart,
  ToolCall,
} from '@flowmesh/contracts';
import type { OutboundPolicy } from '@flowmesh/outbound';
import type { ProviderCredentials } from './provider-credentials.js';

/**
 * What one provider adapter is: pure transforms between the normalized chat model and one
 * vendor's wire format. An adapter never performs I/O itself (the shared `ProviderExecutor` does
 * the HTTP call, the SSE framing, timeouts and aborts), so every transform is unit-tested with
 * recorded fixtures. Bedrock, which runs through the AWS SDK, is the one `native` adapter.
 *
 * See `README.md` beside this file for how to add a vendor.
 */

/**
 * One model call as an adapter sees it. Tool names (in `tools`, `toolChoice`, assistant tool
 * calls and tool results) have already passed the tool-name guard, and attachments have been
 * checked: an adapter never sees a caller's raw tool name, and maps nothing back.
 */
export interface ChatCall extends Omit<ChatParameters, 'stream'> {
  readonly model: string;
  readonly stream: boolean;
}

/** A request an adapter built; the executor adds custom headers and sends it. */
export interface ProviderHttpRequest {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON body (serialized by the executor); absent for GET. */
  readonly body?: unknown;
}

/** One frame of a streamed answer: an SSE event, or a decoded AWS event-stream message. */
export interface StreamFrame {
  /** SSE `event:` (absent for data-only streams), or the event-stream `:event-type`. */
  readonly event?: string;
  readonly data: string;
  readonly id?: string;
}

/** How a streamed body is cut into frames: SSE, or an adapter's own decoder of the raw bytes. */
export type StreamFraming = 'sse' | ((body: AsyncIterable<Uint8Array>) => AsyncIterable<StreamFrame>);

/**
 * What a stream parser yields: the provider's answer in normalized pieces. `index` is the tool
 * call's ordinal in this answer as the provider numbers it (OpenAI's `tool_calls[].index`, a
 * running count of tool_use blocks for Anthropic, never a content-block index). The shared
 * assembler turns these into the contract's `ChatEvent`s: it closes calls the provider never
 * closed, maps tool names back, and builds the final message.
 */
export type ProviderStreamEvent =
  | { readonly type: 'response'; readonly id?: string; readonly model?: string }
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'reasoning';
      readonly text: string;
      readonly signature?: string;
      readonly redacted?: string;
      /** Reasoning block number; a new value starts a new reasoning part. */
      readonly part?: number;
    }
  | {
      readonly type: 'tool_call_start';
      readonly index: number;
      readonly id: string;
      readonly name: string;
      readonly signature?: string;
    }
  | { readonly type: 'tool_call_delta'; readonly index: number; readonly arguments: string }
  | { readonly type: 'tool_call_end'; readonly index: number }
  /** Cumulative so far: a later usage event replaces an earlier one. */
  | { readonly type: 'usage'; readonly usage: ChatUsage }
  | { readonly type: 'finish'; readonly reason: FinishReason; readonly providerReason?: string }
  /** A failure inside a stream that had started (HTTP status already 200). */
  | { readonly type: 'error'; readonly error: ProviderError };

/** A whole (non-streamed) answer, normalized. */
export interface ProviderChatResult {
  readonly id?: string;
  readonly model?: string;
  readonly content: ReadonlyArray<TextPart | ReasoningPart>;
  readonly toolCalls: readonly ToolCall[];
  readonly usage?: ChatUsage;
  readonly finishReason: FinishReason;
  readonly providerReason?: string;
}

/** Response headers, lowercased names. */
export type ResponseHeaders = Readonly<Record<string, string | undefined>>;

export interface EmbeddingsCall {
  readonly model: string;
  readonly input: readonly string[];
  readonly dimensions?: number;
  /** What the texts are for, where the model is told (`EMBEDDING_INPUT_TYPES`). */
  readonly inputType?: EmbeddingInputType;
}

export interface EmbeddingsResult {
  readonly embeddings: number[][];
  readonly model: string;
  readonly inputTokens: number;
}

export interface ListedModel {
  readonly id: string;
  readonly ownedBy?: string;
}

export interface EmbeddingsCodec {
  buildRequest(call: EmbeddingsCall, credentials: ProviderCredentials): ProviderHttpRequest;
  parseResponse(body: unknown, call: EmbeddingsCall): EmbeddingsResult;
}

/** One decision call (System One): typed questions about a state. */
export interface DecisionCall {
  readonly model: string;
  readonly state: unknown;
  readonly questions: Readonly<Record<string, unknown>>;
}

export interface DecisionResult {
  /** One answer per question, by name, as the model gave it. */
  readonly answers: Record<string, Record<string, unknown>>;
  readonly model: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export interface DecisionsCodec {
  buildRequest(call: DecisionCall, credentials: ProviderCredentials): ProviderHttpRequest;
  parseResponse(body: unknown, call: DecisionCall): DecisionResult;
}

/** One image generation call; `images` are the pictures to start from, already fetched. */
export interface ImageCall {
  readonly model: string;
  readonly prompt: string;
  readonly system?: string;
  readonly images: ReadonlyArray<{ readonly mediaType: string; readonly data: string }>;
  readonly temperature?: number;
}

/** The generated image (base64) and what the model said beside it. */
export interface ImageResult {
  readonly data: string;
  readonly mediaType: string;
  readonly model: string;
  readonly text?: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export interface ImagesCodec {
  buildRequest(call: ImageCall, credentials: ProviderCredentials): ProviderHttpRequest;
  /** Throws `bad_request_user` when the answer holds no image (the model declined), with its text. */
  parseResponse(body: unknown, call: ImageCall): ImageResult;
}

export interface ModelsCodec {
  buildRequest(credentials: ProviderCredentials): ProviderHttpRequest;
  parseResponse(body: unknown): ListedModel[];
}

/**
 * The workspace proxy's pass-through (`/api/w/:ws/ai/proxy/*`): the caller's own body goes to the
 * provider, only URL and authentication are the gateway's.
 */
export interface ProxyBuildArgs {
  readonly method: string;
  /** Path after the proxy prefix, e.g. `chat/completions` or `models`. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  /** The caller's headers, lowercased; the adapter picks what it forwards. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Uint8Array;
}

export interface ProxyHttpRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Uint8Array;
}

interface AdapterBase {
  readonly kind: AIProviderKind;
  /** `gen_ai.provider.name` (OpenTelemetry GenAI conventions) for calls with these credentials. */
  telemetryName(credentials: ProviderCredentials): string;
  /**
   * A failed call, from the provider's own error shape (status, body text, headers). Detect the
   * context-window error from the provider's code first, then a conservative message list; a
   * 400 for a request we built is `bad_request_internal`, never the user's fault.
   */
  classifyError(status: number, body: string, headers: ResponseHeaders): ProviderError;
  /** The provider's usage object, normalized (input includes cached tokens). */
  normalizeUsage(raw: unknown): ChatUsage | undefined;
  /** The provider searches the web itself when a call asks (`webSearch`); absent: it cannot. */
  readonly webSearch?: boolean;
}

/** A provider called over HTTP through the shared executor. */
export interface HttpProviderAdapter extends AdapterBase {
  readonly transport: 'http';
  buildRequest(call: ChatCall, credentials: ProviderCredentials): ProviderHttpRequest;
  parseResponse(body: unknown, call: ChatCall): ProviderChatResult;
  readonly streamFraming: StreamFraming;
  /** A stateful parse of one stream: frames in, normalized pieces out, in order. */
  parseStream(frames: AsyncIterable<StreamFrame>, call: ChatCall): AsyncIterable<ProviderStreamEvent>;
  readonly embeddings?: EmbeddingsCodec;
  /** Decision models (`aidecision`); absent for providers without them. */
  readonly decisions?: DecisionsCodec;
  /** Image generation (`output_type: image`); absent for providers without image models. */
  readonly images?: ImagesCodec;
  readonly models?: ModelsCodec;
  /** Pass-through for the workspace proxy; absent when the provider needs translation instead. */
  buildProxyRequest?(args: ProxyBuildArgs, credentials: ProviderCredentials): ProxyHttpRequest;
}

/**
 * What the executor hands a native adapter so its SDK calls follow the rules HTTP calls follow:
 * the configured extra headers and the SSRF policy for every connection.
 */
export interface NativeCallContext {
  /** Headers from configuration, sent before the resource's own `custom_headers`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The outbound policy (`FLOWMESH_OUTBOUND_ALLOW_CIDRS`) every connection must pass. */
  readonly outboundPolicy?: OutboundPolicy;
}

/** A provider called through its SDK (Bedrock): the adapter runs the call itself. */
export interface NativeProviderAdapter extends AdapterBase {
  readonly transport: 'native';
  /** Throws `ProviderCallError` for a failure before the first event; yields `error` after it. */
  chat(
    call: ChatCall,
    credentials: ProviderCredentials,
    signal: AbortSignal,
    context?: NativeCallContext,
  ): AsyncIterable<ProviderStreamEvent>;
  embed?(
    call: EmbeddingsCall,
    credentials: ProviderCredentials,
    signal: AbortSignal,
    context?: NativeCallContext,
  ): Promise<EmbeddingsResult>;
  listModels?(
    credentials: ProviderCredentials,
    signal: AbortSignal,
    context?: NativeCallContext,
  ): Promise<ListedModel[]>;
}

export type ProviderAdapter = HttpProviderAdapter | NativeProviderAdapter;
