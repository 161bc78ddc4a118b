import type { IncomingMessage, ServerResponse } from 'node:http';
import { MeshError } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { LlmCallRecorder } from '../audit/llm-call.recorder.js';
import { KeyOwnership } from '../credentials/key-ownership.js';
import { ChatCompletionsService, abortOnClose } from '../http/chat-completions.service.js';
import { EDGE_CONFIG, type EdgeConfig } from '../http/edge.config.js';
import { ModelsAndEmbeddingsService } from '../http/models-and-embeddings.service.js';
import { toHttpError } from '../http/openai-error.mapper.js';
import { ProviderCallerService, type CallerProvider } from '../http/provider-caller.service.js';
import { sendHttpError } from '../http/send-http-error.js';
import { LazySseResponse } from '../http/sse-response.writer.js';
import type { HttpProviderAdapter } from '../providers/provider-adapter.js';
import { ProviderExecutor } from '../providers/provider-executor.js';
import { ProviderRegistry } from '../providers/provider-registry.js';
import { FIM_PATH, fimToChatCompletion, NATIVE_FIM_KINDS } from './fim-to-chat.js';
import { answerSource, forwardAnswer } from './openai-pass-through.js';

type ProxiedRequest = IncomingMessage & { body?: unknown };

/**
 * `/api/w/:workspace/ai/proxy/<provider path>`: a request for the provider of the resource named
 * in `X-Flowmesh-Provider-Resource`, in that provider's own API (an SDK pointed at the proxy works
 * unchanged). Execution modes, by provider:
 *
 * - forwarding (OpenAI family, Anthropic direct and on Vertex): the adapter's proxy request
 *   (URL and authentication are the gateway's; Vertex gets its body and URL translation), the
 *   answer streamed back as is, with keepalives;
 * - translated (Google AI, Bedrock): `chat/completions`, `embeddings` and `models` in OpenAI's
 *   shape, run through the normalized path and answered in OpenAI's shape.
 *
 * A FIM request (`fim/completions`) to a provider without native FIM becomes a chat completion.
 * A failure is answered in OpenAI's error shape with whose fault it is (`error.fault`).
 */
@Injectable()
export class WorkspaceProxyService {
  constructor(
    private readonly callers: ProviderCallerService,
    private readonly registry: ProviderRegistry,
    private readonly executor: ProviderExecutor,
    private readonly recorder: LlmCallRecorder,
    private readonly chat: ChatCompletionsService,
    private readonly modelsAndEmbeddings: ModelsAndEmbeddingsService,
    private readonly keys: KeyOwnership,
    @Inject(EDGE_CONFIG) private readonly config: EdgeConfig,
  ) {}

  async handle(
    req: ProxiedRequest,
    res: ServerResponse,
    workspace: string,
    providerPath: string,
  ): Promise<void> {
    try {
      const resolved = await this.callers.resolve(withAnthropicKey(req.headers), { workspace });
      const adapter = this.registry.get(resolved.kind);
      let path = providerPath.replace(/^\/+/, '');
      const fim = path === FIM_PATH || path === `v1/${FIM_PATH}`;
      if (fim && !NATIVE_FIM_KINDS.has(resolved.kind)) {
        req.body = fimToChatCompletion(req.body);
        path = 'chat/completions';
      }
      if (adapter.transport === 'http' && adapter.buildProxyRequest) {
        await this.forward(req, res, resolved, adapter, path, fim);
        return;
      }
      const route = { workspace, resource: resolved.resource };
      const operation = path.replace(/^v1\//, '');
      if (operation === 'chat/completions') return await this.chat.handle(req, res, route);
      if (operation === 'embeddings') return await this.modelsAndEmbeddings.embeddings(req, res, route);
      if (operation === 'models') return await this.modelsAndEmbeddings.models(req, res, route);
      throw new MeshError(
        'NOT_FOUND',
        `the ${resolved.kind} proxy serves chat/completions, embeddings and models, not ${path}`,
      );
    } catch (error) {
      sendHttpError(res, error);
    }
  }

  private async forward(
    req: ProxiedRequest,
    res: ServerResponse,
    resolved: CallerProvider,
    adapter: HttpProviderAdapter,
    path: string,
    fim: boolean,
  ): Promise<void> {
    const body = await bodyBytes(req);
    const json = req.body as { model?: unknown; stream?: unknown } | undefined;
    const model = typeof json?.model === 'string' ? json.model : '(none)';
    const built = adapter.buildProxyRequest!(
      {
        method: req.method ?? 'GET',
        path,
        query: queryOf(req.url),
        headers: lowerHeaders(req.headers),
        ...(body ? { body } : {}),
      },
      resolved.credentials,
    );
    const abort = abortOnClose(res);
    const call = this.recorder.begin({
      operation: fim ? 'text_completion' : path.endsWith('embeddings') ? 'embeddings' : 'chat',
      source: 'proxy',
      kind: resolved.kind,
      providerName: adapter.telemetryName(resolved.credentials),
      model,
      stream: json?.stream === true,
      workspace: resolved.workspace,
      resource: resolved.resource,
      identity: resolved.identity,
      requestBody: req.body,
    });
    const lazy = json?.stream === true ? new LazySseResponse(res, this.config.sseKeepaliveMs) : undefined;
    try {
      const upstream = await this.executor.send(adapter, built, resolved.credentials, abort.signal, model);
      const answer = await forwardAnswer(answerSource(upstream), res, {
        keepaliveMs: this.config.sseKeepaliveMs,
        normalizeUsage: (raw) => adapter.normalizeUsage(raw),
        onFirstChunk: () => call.markFirstChunk(),
        ...(lazy ? { lazy } : {}),
      });
      call.succeed({ ...answer, httpStatus: upstream.status });
    } catch (caught) {
      // Whose fault: the gateway knows whose key it used (the body's `fault`, the span's, the counter's).
      const error = this.keys.attributeCaught(caught, resolved.resource);
      const failure = toHttpError(error);
      call.fail({
        errorClass: failure.errorClass,
        fault: failure.fault,
        httpStatus: failure.status,
        cancelled: abort.signal.aborted,
      });
      throw error;
    } finally {
      lazy?.dispose();
      abort.dispose();
    }
  }
}

/** Anthropic SDKs before 1.0 send their key as `x-api-key`: accept the registry token there too. */
function withAnthropicKey(headers: IncomingMessage['headers']): IncomingMessage['headers'] {
  const key = headers['x-api-key'];
  if (headers.authorization || typeof key !== 'string') return headers;
  return { ...headers, authorization: `Bearer ${key}` };
}

async function bodyBytes(req: ProxiedRequest): Promise<Uint8Array | undefined> {
  if (req.body !== undefined) return Buffer.from(JSON.stringify(req.body));
  if (req.method === 'GET' || req.method === 'HEAD' || req.readableEnded) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length > 0 ? Buffer.concat(chunks) : undefined;
}

function queryOf(url: string | undefined): Record<string, string> {
  const at = url?.indexOf('?') ?? -1;
  return at < 0 || !url ? {} : Object.fromEntries(new URLSearchParams(url.slice(at + 1)));
}

function lowerHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
