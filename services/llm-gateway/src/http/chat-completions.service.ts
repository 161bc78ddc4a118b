import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChatEvent, ProviderError } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { LlmCallRecorder } from '../audit/llm-call.recorder.js';
import { ChatRunner } from '../chat/chat-runner.service.js';
import { KeyOwnership } from '../credentials/key-ownership.js';
import { chatEndpoint, forwardAnswer, PASS_THROUGH_KINDS } from '../proxy/openai-pass-through.js';
import type { HttpProviderAdapter } from '../providers/provider-adapter.js';
import { ProviderCallError } from '../providers/provider-call.error.js';
import { ProviderExecutor } from '../providers/provider-executor.js';
import { UpstreamExchange } from '../providers/upstream-exchange.js';
import { ProviderRegistry } from '../providers/provider-registry.js';
import { MediaUrlResolver } from '../media/media-url.resolver.js';
import { EDGE_CONFIG, type EdgeConfig } from './edge.config.js';
import { OpenAIChatRequestSchema, type OpenAIChatRequest } from './openai-chat-request.schema.js';
import { invalid, mapOpenAIChatRequest } from './openai-chat-request.mapper.js';
import { OpenAIChunkEncoder, openAIFinishReason, openAIUsage } from './openai-chunk.encoder.js';
import { toHttpError } from './openai-error.mapper.js';
import { ProviderCallerService, type CallerProvider } from './provider-caller.service.js';
import { LazySseResponse } from './sse-response.writer.js';
import { sendHttpError } from './send-http-error.js';
import { recordAddedLatency } from '../telemetry/gateway.metrics.js';

/**
 * `POST /v1/chat/completions`, OpenAI's shape with any provider behind it. OpenAI-shaped
 * providers get the caller's body forwarded as is (the fast path: no translation either way);
 * every other provider gets it translated into the normalized call (images and PDFs by URL
 * fetched and inlined), run by the `ChatRunner` (retries, tool-name guard, audit), and its
 * events translated back into OpenAI chunks. On the forwarding path a URL goes to the provider
 * as the caller wrote it: OpenAI-shaped providers fetch image URLs themselves.
 */
@Injectable()
export class ChatCompletionsService {
  constructor(
    private readonly callers: ProviderCallerService,
    private readonly registry: ProviderRegistry,
    private readonly executor: ProviderExecutor,
    private readonly runner: ChatRunner,
    private readonly recorder: LlmCallRecorder,
    private readonly media: MediaUrlResolver,
    private readonly keys: KeyOwnership,
    @Inject(EDGE_CONFIG) private readonly config: EdgeConfig,
  ) {}

  /**
   * `rawBody`: the body as received, forwarded as is on the pass-through path (`ChatCompletionsRoute`
   * has it; the workspace proxy's body comes parsed, and goes out serialized again).
   */
  async handle(
    req: IncomingMessage & { body?: unknown },
    res: ServerResponse,
    route: { workspace?: string; resource?: string } = {},
    rawBody?: Buffer,
  ): Promise<void> {
    const receivedAt = performance.now();
    try {
      const resolved = await this.callers.resolve(req.headers, route);
      const adapter = this.registry.get(resolved.kind);
      if (adapter.transport === 'http' && PASS_THROUGH_KINDS.has(resolved.kind)) {
        // The provider checks the body it speaks; the gateway needs only what it routes by.
        await this.passThrough(resolved, adapter, passThroughBody(req.body), res, receivedAt, rawBody);
      } else {
        const parsed = OpenAIChatRequestSchema.safeParse(req.body);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw invalid(
            issue?.path.join('.') || 'body',
            issue?.message ?? 'is not a chat completion request',
          );
        }
        const abort = abortOnClose(res);
        try {
          await this.translated(resolved, parsed.data, res, abort.signal);
        } finally {
          abort.dispose();
        }
      }
    } catch (error) {
      sendHttpError(res, error);
    }
  }

  private async passThrough(
    resolved: CallerProvider,
    adapter: HttpProviderAdapter,
    body: OpenAIChatRequest,
    res: ServerResponse,
    receivedAt: number,
    rawBody?: Buffer,
  ): Promise<void> {
    const stream = body.stream === true;
    const { credentials } = resolved;
    const endpoint = chatEndpoint(adapter, credentials, body.model, stream, (built, forCredentials) =>
      this.executor.requestHeaders(built, forCredentials),
    );
    const call = this.recorder.begin({
      operation: 'chat',
      source: 'http',
      kind: resolved.kind,
      providerName: adapter.telemetryName(credentials),
      model: body.model,
      stream,
      workspace: resolved.workspace,
      resource: resolved.resource,
      identity: resolved.identity,
      ...((body.max_completion_tokens ?? body.max_tokens)
        ? { maxTokens: (body.max_completion_tokens ?? body.max_tokens) as number }
        : {}),
      ...(body.temperature != null ? { temperature: body.temperature } : {}),
      requestBody: body,
    });
    const lazy = stream ? new LazySseResponse(res, this.config.sseKeepaliveMs) : undefined;
    // The caller hanging up before the answer is complete ends the upstream call.
    const exchange = new UpstreamExchange();
    const onClose = () => {
      if (!res.writableFinished) exchange.abort();
    };
    res.once('close', onClose);
    try {
      recordAddedLatency(receivedAt, 'http');
      await this.executor.exchange(
        adapter,
        endpoint,
        rawBody ?? Buffer.from(JSON.stringify(body)),
        exchange,
        body.model,
      );
      const answer = await forwardAnswer(exchange, res, {
        keepaliveMs: this.config.sseKeepaliveMs,
        normalizeUsage: (raw) => adapter.normalizeUsage(raw),
        onFirstChunk: () => call.markFirstChunk(),
        ...(lazy ? { lazy } : {}),
      }).catch((error: unknown) => {
        throw this.executor.failureOf(error, adapter, exchange.aborted, body.model, endpoint.origin);
      });
      call.succeed({ ...answer, httpStatus: exchange.status });
    } catch (caught) {
      // Whose fault: the gateway knows whose key it used (the body's `fault`, the span's, the counter's).
      const error = this.keys.attributeCaught(caught, resolved.resource);
      const failure = toHttpError(error);
      call.fail({
        errorClass: failure.errorClass,
        fault: failure.fault,
        httpStatus: failure.status,
        cancelled: exchange.aborted,
      });
      throw error;
    } finally {
      res.off('close', onClose);
      lazy?.dispose();
    }
  }

  private async translated(
    resolved: CallerProvider,
    body: OpenAIChatRequest,
    res: ServerResponse,
    signal: AbortSignal,
  ): Promise<void> {
    const mapped = mapOpenAIChatRequest(body);
    // Images and PDFs by URL are fetched here, whatever the provider: a failure is the caller's
    // 400 naming the field, before any provider is called.
    let parameters = mapped.parameters;
    if (MediaUrlResolver.hasUrlParts(parameters)) {
      this.media.check(parameters, mapped.mediaParam);
      parameters = await this.media.resolve(parameters, mapped.mediaParam, resolved.workspace, signal);
    }
    const events = this.runner.run(
      {
        actor: { token: resolved.token },
        workspace: resolved.workspace,
        provider: { kind: resolved.kind, resource: resolved.resource, model: mapped.model },
        parameters,
        credentials: resolved.credentials,
        source: 'http',
        identity: resolved.identity,
      },
      signal,
    );
    const id = `chatcmpl-${randomUUID().replaceAll('-', '')}`;
    if (mapped.stream)
      await this.streamEvents(events, res, new OpenAIChunkEncoder(id, mapped.model, mapped.includeUsage));
    else await this.completion(events, res, id, mapped.model);
  }

  /**
   * Streams events as chunks. The stream opens on the first chunk (or after one keepalive
   * interval of silence), so a failure that comes sooner (rate limit after retries) is still an
   * HTTP error status the SDKs raise as such.
   */
  private async streamEvents(
    events: AsyncIterable<ChatEvent>,
    res: ServerResponse,
    encoder: OpenAIChunkEncoder,
  ): Promise<void> {
    const lazy = new LazySseResponse(res, this.config.sseKeepaliveMs);
    try {
      for await (const event of events) {
        if (event.type === 'error' && !lazy.opened) throw errorOf(event.error);
        const frames = encoder.encode(event);
        if (frames) {
          const pending = lazy.open().write(frames);
          if (pending) await pending;
        }
        if (event.type === 'message' || event.type === 'error') break;
      }
      if (lazy.opened) lazy.open().end();
    } finally {
      lazy.dispose();
    }
  }

  private async completion(
    events: AsyncIterable<ChatEvent>,
    res: ServerResponse,
    id: string,
    model: string,
  ): Promise<void> {
    for await (const event of events) {
      if (event.type === 'error') throw errorOf(event.error);
      if (event.type !== 'message') continue;
      const text = event.message.content
        .flatMap((part) => (part.type === 'text' ? [part.text] : []))
        .join('');
      const reasoning = event.message.content
        .flatMap((part) => (part.type === 'reasoning' ? [part.text] : []))
        .join('');
      const toolCalls = event.message.toolCalls ?? [];
      const body = {
        id: event.responseId ?? id,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: event.model || model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: text || (toolCalls.length > 0 ? null : ''),
              refusal: null,
              ...(reasoning ? { reasoning_content: reasoning } : {}),
              ...(toolCalls.length > 0
                ? {
                    tool_calls: toolCalls.map((call) => ({
                      id: call.id,
                      type: 'function',
                      function: { name: call.name, arguments: call.arguments },
                    })),
                  }
                : {}),
            },
            logprobs: null,
            finish_reason: openAIFinishReason(event.finishReason),
          },
        ],
        ...(event.usage ? { usage: openAIUsage(event.usage) } : {}),
      };
      const json = JSON.stringify(body);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
      res.end(json);
      return;
    }
  }
}

/** The few fields a forwarded body must have; the rest is the provider's to judge. */
function passThroughBody(body: unknown): OpenAIChatRequest {
  const candidate = body as Partial<OpenAIChatRequest> | null | undefined;
  if (typeof candidate !== 'object' || candidate === null) throw invalid('body', 'must be a JSON object');
  if (typeof candidate.model !== 'string' || candidate.model === '')
    throw invalid('model', 'must be a non-empty string');
  if (!Array.isArray(candidate.messages) || candidate.messages.length === 0)
    throw invalid('messages', 'needs at least one message');
  return candidate as OpenAIChatRequest;
}

/** A provider error event as the thrown error `toHttpError` maps (status from its class). */
export function errorOf(error: ProviderError): Error {
  return new ProviderCallError(error);
}

/** An AbortSignal that fires when the caller hangs up before the answer is complete. */
export function abortOnClose(res: ServerResponse): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) controller.abort();
  };
  res.once('close', onClose);
  return { signal: controller.signal, dispose: () => res.off('close', onClose) };
}
