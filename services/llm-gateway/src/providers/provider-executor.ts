import type { OutboundPolicy } from '@flowmesh/outbound';
import { errors as undiciErrors, getGlobalDispatcher, request, type Dispatcher } from 'undici';
import { providerCallError, ProviderCallError } from './provider-call.error.js';
import type {
  ChatCall,
  DecisionCall,
  DecisionResult,
  EmbeddingsCall,
  EmbeddingsResult,
  HttpProviderAdapter,
  ImageCall,
  ImageResult,
  ListedModel,
  NativeCallContext,
  ProviderAdapter,
  ProviderHttpRequest,
  ProviderStreamEvent,
  ProxyHttpRequest,
  ResponseHeaders,
} from './provider-adapter.js';
import type { ProviderCredentials } from './provider-credentials.js';
import { resultPieces } from './shared/result-pieces.js';
import { sseFrames } from './shared/sse-frames.js';
import { flattenHeaders, type UpstreamExchange } from './upstream-exchange.js';

/** A request whose URL was split once (`origin`, `path`) and whose headers are final (`requestHeaders`). */
export interface PreparedHttpRequest {
  readonly origin: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface ProviderExecutorOptions {
  /** undici dispatcher for every provider call (the SSRF-guarded one in a service). */
  readonly dispatcher?: Dispatcher;
  /** Time to the response headers (default 120 s: a slow model thinks before its first byte). */
  readonly headersTimeoutMs?: number;
  /** Longest silence inside a body (default 300 s). */
  readonly bodyTimeoutMs?: number;
  /** Headers from configuration, sent to every provider (before the resource's own). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The SSRF policy, handed to native adapters whose SDK opens its own connections. */
  readonly outboundPolicy?: OutboundPolicy;
}

/** An answered HTTP call, body unread. */
export interface ProviderResponse {
  readonly status: number;
  readonly headers: ResponseHeaders;
  readonly body: AsyncIterable<Uint8Array> & { text(): Promise<string>; json(): Promise<unknown> };
}

const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * Performs provider calls for the adapters: the HTTP request (undici, keep-alive pool, abort
 * signal, timeouts), custom headers (configuration, then the resource's), classification of a
 * failed status by the adapter, and the framing of a streamed body. A failure before the first
 * piece is a thrown `ProviderCallError`; an abort is `cancelled`; a network failure or timeout is
 * `provider_outage` naming the host only (a URL may carry a key in its query).
 */
export class ProviderExecutor {
  private readonly nativeContext: NativeCallContext;

  constructor(private readonly options: ProviderExecutorOptions = {}) {
    this.nativeContext = {
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.outboundPolicy ? { outboundPolicy: options.outboundPolicy } : {}),
    };
  }

  /**
   * The pieces of one chat answer, streamed or not. An HTTP provider gets `idempotencyKey` as the
   * `Idempotency-Key` header (the IETF draft's name; one that does not deduplicate ignores it).
   */
  async *chat(
    adapter: ProviderAdapter,
    call: ChatCall,
    credentials: ProviderCredentials,
    signal: AbortSignal,
    idempotencyKey?: string,
  ): AsyncIterable<ProviderStreamEvent> {
    if (adapter.transport === 'native') {
      yield* this.guardNative(
        adapter.chat(call, credentials, signal, this.nativeContext),
        adapter,
        call.model,
        signal,
      );
      return;
    }
    const built = adapter.buildRequest(call, credentials);
    const keyed = idempotencyKey
      ? { ...built, headers: { ...built.headers, 'Idempotency-Key': idempotencyKey } }
      : built;
    const response = await this.send(adapter, keyed, credentials, signal, call.model);
    const contentType = response.headers['content-type'] ?? '';
    try {
      if (call.stream && contentType.includes('text/event-stream')) {
        yield* adapter.parseStream(this.frames(adapter, response.body), call);
      } else if (
        call.stream &&
        typeof adapter.streamFraming === 'function' &&
        !contentType.includes('json')
      ) {
        yield* adapter.parseStream(adapter.streamFraming(response.body), call);
      } else {
        // A server that ignored `stream: true` answers with JSON: read it as the whole answer.
        const json = await readJson(response, adapter, call.model);
        yield* resultPieces(adapter.parseResponse(json, call));
      }
    } catch (error) {
      throw this.failure(error, adapter, signal.aborted, call.model);
    }
  }

  async embed(
    adapter: ProviderAdapter,
    call: EmbeddingsCall,
    credentials: ProviderCredentials,
    signal: AbortSignal,
  ): Promise<EmbeddingsResult> {
    if (adapter.transport === 'native') {
      if (!adapter.embed) throw unsupported(adapter, 'embeddings');
      return this.guardNativeCall(
        () => adapter.embed!(call, credentials, signal, this.nativeContext),
        adapter,
        call.model,
        signal,
      );
    }
    if (!adapter.embeddings) throw unsupported(adapter, 'embeddings');
    return this.viaCodec(adapter, adapter.embeddings, call, credentials, signal);
  }

  /** One decision call; providers without decision models are UNSUPPORTED. */
  async decide(
    adapter: ProviderAdapter,
    call: DecisionCall,
    credentials: ProviderCredentials,
    signal: AbortSignal,
  ): Promise<DecisionResult> {
    if (adapter.transport !== 'http' || !adapter.decisions) throw unsupported(adapter, 'decision models');
    return this.viaCodec(adapter, adapter.decisions, call, credentials, signal);
  }

  /** One image generation call; providers without image models are UNSUPPORTED. */
  async generateImage(
    adapter: ProviderAdapter,
    call: ImageCall,
    credentials: ProviderCredentials,
    signal: AbortSignal,
  ): Promise<ImageResult> {
    if (adapter.transport !== 'http' || !adapter.images) throw unsupported(adapter, 'image generation');
    return this.viaCodec(adapter, adapter.images, call, credentials, signal);
  }

  /** One JSON call an adapter's codec builds and reads. */
  private async viaCodec<C extends { readonly model: string }, R>(
    adapter: ProviderAdapter,
    codec: {
      buildRequest(call: C, credentials: ProviderCredentials): ProviderHttpRequest;
      parseResponse(body: unknown, call: C): R;
    },
    call: C,
    credentials: ProviderCredentials,
    signal: AbortSignal,
  ): Promise<R> {
    const response = await this.send(
      adapter,
      codec.buildRequest(call, credentials),
      credentials,
      signal,
      call.model,
    );
    return codec.parseResponse(await readJson(response, adapter, call.model), call);
  }

  async listModels(
    adapter: ProviderAdapter,
    credentials: ProviderCredentials,
    signal: AbortSignal,
  ): Promise<ListedModel[]> {
    if (adapter.transport === 'native') {
      if (!adapter.listModels) throw unsupported(adapter, 'model lists');
      return this.guardNativeCall(
        () => adapter.listModels!(credentials, signal, this.nativeContext),
        adapter,
        undefined,
        signal,
      );
    }
    if (!adapter.models) throw unsupported(adapter, 'model lists');
    const response = await this.send(adapter, adapter.models.buildRequest(credentials), credentials, signal);
    return adapter.models.parseResponse(await readJson(response, adapter));
  }

  /**
   * Sends a built request; a status of 400 or more is read, classified by the adapter and thrown.
   * The workspace proxy uses it with a `ProxyHttpRequest` and reads the body itself.
   */
  async send(
    adapter: ProviderAdapter,
    built: ProviderHttpRequest | ProxyHttpRequest,
    credentials: ProviderCredentials,
    signal: AbortSignal,
    model?: string,
  ): Promise<ProviderResponse> {
    const headers = this.requestHeaders(built.headers, credentials);
    const body =
      'body' in built && built.body !== undefined
        ? built.body instanceof Uint8Array
          ? built.body
          : JSON.stringify(built.body)
        : undefined;
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(built.url, {
        method: built.method,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal,
        headersTimeout: this.options.headersTimeoutMs ?? 120_000,
        bodyTimeout: this.options.bodyTimeoutMs ?? 300_000,
        ...(this.options.dispatcher ? { dispatcher: this.options.dispatcher } : {}),
      });
    } catch (error) {
      throw this.failure(error, adapter, signal.aborted, model, built.url);
    }
    const responseHeaders = flattenHeaders(answer.headers);
    if (answer.statusCode >= 400) {
      const text = await readBounded(answer.body, MAX_ERROR_BODY_BYTES).catch(() => '');
      const classified = adapter.classifyError(answer.statusCode, text, responseHeaders);
      throw new ProviderCallError({ ...classified, provider: adapter.kind, ...(model ? { model } : {}) });
    }
    return { status: answer.statusCode, headers: responseHeaders, body: answer.body };
  }

  /** The headers a request goes out with: the adapter's, then configuration's, then the resource's own. */
  requestHeaders(
    built: Readonly<Record<string, string>>,
    credentials: ProviderCredentials,
  ): Record<string, string> {
    return { ...built, ...this.options.headers, ...credentials.custom_headers };
  }

  /**
   * `send` for the pass-through path, on undici's handler interface (`UpstreamExchange`): a POST
   * of `body` as it is, through the same dispatcher, timeouts and classification. Resolves once
   * the status and headers are in; a status of 400 or more is read, classified and thrown. The
   * caller reads the body from the exchange, and calls `exchange.abort()` when its own caller
   * goes away.
   */
  async exchange(
    adapter: ProviderAdapter,
    request: PreparedHttpRequest,
    body: Uint8Array,
    exchange: UpstreamExchange,
    model?: string,
  ): Promise<UpstreamExchange> {
    try {
      (this.options.dispatcher ?? getGlobalDispatcher()).dispatch(
        {
          origin: request.origin,
          path: request.path,
          method: 'POST',
          headers: request.headers,
          body,
          headersTimeout: this.options.headersTimeoutMs ?? 120_000,
          bodyTimeout: this.options.bodyTimeoutMs ?? 300_000,
        },
        exchange,
      );
      await exchange.response;
    } catch (error) {
      throw this.failure(error, adapter, exchange.aborted, model, request.origin);
    }
    if (exchange.status >= 400) {
      const text = await exchange
        .collect(MAX_ERROR_BODY_BYTES)
        .then((bytes) => bytes.toString('utf8'))
        .catch(() => '');
      const classified = adapter.classifyError(exchange.status, text, exchange.headers);
      throw new ProviderCallError({ ...classified, provider: adapter.kind, ...(model ? { model } : {}) });
    }
    return exchange;
  }

  /** Any failure of a call as `failure` classifies it (for errors met while reading an exchange's body). */
  failureOf(error: unknown, adapter: ProviderAdapter, aborted: boolean, model?: string, url?: string): Error {
    return this.failure(error, adapter, aborted, model, url);
  }

  private frames(adapter: HttpProviderAdapter, body: AsyncIterable<Uint8Array>) {
    return adapter.streamFraming === 'sse' ? sseFrames(body) : adapter.streamFraming(body);
  }

  private async *guardNative(
    pieces: AsyncIterable<ProviderStreamEvent>,
    adapter: ProviderAdapter,
    model: string,
    signal: AbortSignal,
  ): AsyncIterable<ProviderStreamEvent> {
    try {
      yield* pieces;
    } catch (error) {
      throw this.failure(error, adapter, signal.aborted, model);
    }
  }

  private async guardNativeCall<T>(
    run: () => Promise<T>,
    adapter: ProviderAdapter,
    model: string | undefined,
    signal: AbortSignal,
  ): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw this.failure(error, adapter, signal.aborted, model);
    }
  }

  /** Any failure as a classified `ProviderCallError` (one already classified passes through). */
  private failure(
    error: unknown,
    adapter: ProviderAdapter,
    aborted: boolean,
    model?: string,
    url?: string,
  ): Error {
    const extra = { provider: adapter.kind, ...(model ? { model } : {}) };
    if (error instanceof ProviderCallError) {
      return error.providerError.provider
        ? error
        : new ProviderCallError({ ...error.providerError, ...extra });
    }
    if (aborted) return providerCallError('cancelled', 'the call was cancelled', extra);
    const host = url ? hostOf(url) : adapter.kind;
    if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) {
      return providerCallError('provider_outage', `${host} did not answer in time`, extra);
    }
    if (error instanceof Error && error.name === 'OutboundRefusedError') {
      // The SSRF guard's refusal names the host and why, never a credential.
      return providerCallError('bad_request_user', error.message, extra);
    }
    const code =
      error instanceof Error && 'code' in error ? String((error as { code: unknown }).code) : undefined;
    return providerCallError('provider_outage', `could not reach ${host}${code ? ` (${code})` : ''}`, extra);
  }
}

function unsupported(adapter: ProviderAdapter, what: string): ProviderCallError {
  return providerCallError(
    'bad_request_user',
    `provider ${adapter.kind} offers no ${what} through the gateway`,
    {
      provider: adapter.kind,
    },
  );
}

async function readJson(
  response: ProviderResponse,
  adapter: ProviderAdapter,
  model?: string,
): Promise<unknown> {
  const text = await response.body.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw providerCallError(
      'provider_outage',
      `${adapter.kind} answered ${response.status} with a body that is not JSON`,
      {
        provider: adapter.kind,
        ...(model ? { model } : {}),
      },
    );
  }
}

async function readBounded(body: AsyncIterable<Uint8Array>, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size < limit) chunks.push(Buffer.from(chunk));
    size += chunk.byteLength;
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the provider';
  }
}
