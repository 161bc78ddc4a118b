import type { ChatUsage } from '@flowmesh/contracts';
import type { ServerResponse } from 'node:http';
import type { ChatCall, HttpProviderAdapter, ResponseHeaders } from '../providers/provider-adapter.js';
import type { ProviderCredentials } from '../providers/provider-credentials.js';
import type { PreparedHttpRequest, ProviderResponse } from '../providers/provider-executor.js';
import { SseResponseWriter, type LazySseResponse } from '../http/sse-response.writer.js';
import { providerCallError } from '../providers/provider-call.error.js';

/**
 * Provider kinds whose chat API is OpenAI's own shape with no quirk a caller's OpenAI body would
 * trip over: the gateway forwards the caller's body as is (URL, authentication and custom
 * headers are the gateway's) instead of translating it twice.
 */
export const PASS_THROUGH_KINDS: ReadonlySet<string> = new Set([
  'openai',
  'azure_openai',
  'azure_foundry',
  'customai',
  'groq',
  'togetherai',
]);

export interface Endpoint extends PreparedHttpRequest {
  readonly url: string;
}

const endpoints = new WeakMap<ProviderCredentials, Map<string, Endpoint>>();

/**
 * The chat URL (split into origin and path) and the final request headers for a model, as the
 * adapter builds them and `headersOf` completes them, remembered per resolved credentials (cached
 * objects, dropped with them: so this is one map lookup per request).
 */
export function chatEndpoint(
  adapter: HttpProviderAdapter,
  credentials: ProviderCredentials,
  model: string,
  stream: boolean,
  headersOf: (
    built: Readonly<Record<string, string>>,
    credentials: ProviderCredentials,
  ) => Record<string, string>,
): Endpoint {
  let byModel = endpoints.get(credentials);
  if (!byModel) {
    byModel = new Map();
    endpoints.set(credentials, byModel);
  }
  const key = stream ? `s:${model}` : `n:${model}`;
  let endpoint = byModel.get(key);
  if (!endpoint) {
    const probe: ChatCall = {
      model,
      stream,
      messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }],
    };
    const built = adapter.buildRequest(probe, credentials);
    const url = new URL(built.url);
    endpoint = {
      url: built.url,
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      headers: headersOf(built.headers, credentials),
    };
    byModel.set(key, endpoint);
  }
  return endpoint;
}

export interface ForwardedAnswer {
  readonly usage?: ChatUsage;
  readonly responseModel?: string;
  readonly responseId?: string;
  readonly finishReason?: string;
}

/** Only the end of a stream is kept for its usage: the last frames, never the whole answer. */
const TAIL_CHUNKS = 3;

/**
 * An answered upstream call, body unread: an `UpstreamExchange` (the chat pass-through) or a
 * `ProviderResponse` through `answerSource` (the workspace proxy). `stream` hands chunks over as
 * they come (a returned promise is backpressure; `false` stops reading), `collect` the whole body.
 */
export interface AnswerSource {
  readonly status: number;
  readonly headers: ResponseHeaders;
  stream(onChunk: (chunk: Uint8Array) => Promise<void> | void | false): Promise<void>;
  collect(): Promise<Buffer>;
}

/** A `ProviderResponse` (undici's `request` API) as an `AnswerSource`. */
export function answerSource(upstream: ProviderResponse): AnswerSource {
  return {
    status: upstream.status,
    headers: upstream.headers,
    async stream(onChunk) {
      for await (const chunk of upstream.body) {
        const pending = onChunk(chunk);
        if (pending === false) break;
        if (pending) await pending;
      }
    },
    async collect() {
      const chunks: Uint8Array[] = [];
      for await (const chunk of upstream.body) chunks.push(chunk);
      return Buffer.concat(chunks);
    },
  };
}

/**
 * Streams an upstream answer to the caller unchanged (status, content type, bytes), with
 * keepalives on event streams, and reads usage, model and finish reason from what passed by
 * (the last frames of a stream, the body of a JSON answer). `onFirstChunk` times the first byte.
 */
export async function forwardAnswer(
  upstream: AnswerSource,
  res: ServerResponse,
  options: {
    readonly keepaliveMs: number;
    readonly normalizeUsage: (raw: unknown) => ChatUsage | undefined;
    readonly onFirstChunk: () => void;
    /** A streamed request's response, which may have opened early to keep the caller waiting. */
    readonly lazy?: LazySseResponse;
  },
): Promise<ForwardedAnswer> {
  const contentType = upstream.headers['content-type'] ?? 'application/json';
  if (contentType.includes('text/event-stream')) {
    const writer = options.lazy
      ? options.lazy.open()
      : new SseResponseWriter(res, options.keepaliveMs, upstream.status);
    const tail: Uint8Array[] = [];
    let first = true;
    await upstream.stream((chunk) => {
      if (first) {
        first = false;
        options.onFirstChunk();
      }
      if (tail.length === TAIL_CHUNKS) tail.shift();
      tail.push(chunk);
      const pending = writer.write(chunk);
      return writer.open ? pending : false;
    });
    writer.end();
    return summaryOfStreamTail(Buffer.concat(tail).toString('utf8'), options.normalizeUsage);
  }
  if (options.lazy?.opened) {
    throw providerCallError('provider_outage', 'the provider answered a streamed request without a stream');
  }
  options.lazy?.dispose();
  const body = await upstream.collect();
  options.onFirstChunk();
  res.writeHead(upstream.status, { 'content-type': contentType, 'content-length': body.length });
  res.end(body);
  return summaryOfJson(body, options.normalizeUsage);
}

interface OpenAIShapedAnswer {
  id?: string;
  model?: string;
  usage?: unknown;
  choices?: Array<{ finish_reason?: string | null }>;
}

function summaryOfJson(
  body: Buffer,
  normalizeUsage: (raw: unknown) => ChatUsage | undefined,
): ForwardedAnswer {
  let parsed: OpenAIShapedAnswer;
  try {
    parsed = JSON.parse(body.toString('utf8')) as OpenAIShapedAnswer;
  } catch {
    return {};
  }
  return summary(parsed, normalizeUsage);
}

function summary(
  answer: OpenAIShapedAnswer,
  normalizeUsage: (raw: unknown) => ChatUsage | undefined,
): ForwardedAnswer {
  const usage = answer.usage ? normalizeUsage(answer.usage) : undefined;
  const finishReason = answer.choices?.find((choice) => choice.finish_reason)?.finish_reason ?? undefined;
  return {
    ...(usage ? { usage } : {}),
    ...(answer.model ? { responseModel: answer.model } : {}),
    ...(answer.id ? { responseId: answer.id } : {}),
    ...(finishReason ? { finishReason } : {}),
  };
}

/** Usage and finish reason from the last `data:` frames of an OpenAI-shaped stream. */
export function summaryOfStreamTail(
  tail: string,
  normalizeUsage: (raw: unknown) => ChatUsage | undefined,
): ForwardedAnswer {
  const merged: OpenAIShapedAnswer = {};
  for (const line of tail.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (!data.startsWith('{')) continue;
    try {
      const frame = JSON.parse(data) as OpenAIShapedAnswer;
      merged.id ??= frame.id;
      merged.model ??= frame.model;
      if (frame.usage) merged.usage = frame.usage;
      if (frame.choices?.some((choice) => choice.finish_reason)) merged.choices = frame.choices;
    } catch {
      // The first line of the tail may be a frame cut in half.
    }
  }
  return summary(merged, normalizeUsage);
}
