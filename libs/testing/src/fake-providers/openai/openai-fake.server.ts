import type http from 'node:http';
import {
  endResponse,
  ReplyScript,
  startRecordingServer,
  waitForClientClose,
  writeChunk,
  writeJson,
  type RecordedRequest,
  type ReplyFunction,
} from '../recording-server.js';
import {
  fakeEmbedding,
  formatDataFrame,
  openAIErrorBody,
  renderChunks,
  renderCompletion,
  renderImageResponse,
} from './openai-fake.render.js';
import type { OpenAIFakeErrorReply, OpenAIFakeReply } from './openai-fake.types.js';
import { validateChatBody, type OpenAIValidationOptions } from './openai-fake.validation.js';

export interface FakeOpenAIOptions extends OpenAIValidationOptions {
  /** When set, calls must carry it as `Authorization: Bearer` or Azure's `api-key`. */
  apiKey?: string;
  /** What `GET .../models` lists. */
  models?: string[];
}

/**
 * A fake OpenAI Chat Completions API, also speaking the compatible vendors' variants: `POST
 * <any base>/chat/completions`, `/embeddings`, `GET /models`, `/responses` (image generation only), and Azure's shapes
 * (`/openai/deployments/{deployment}/...?api-version=...`, which 404s without an api-version as
 * Azure does; Foundry's `/models/chat/completions?api-version=...`). Each chat takes the next
 * scripted reply and renders it as JSON or SSE chunks as the request asks; requests are recorded.
 */
export interface FakeOpenAI {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Chat requests only (embeddings and model lists left out). */
  chatRequests(): RecordedRequest[];
  reply(...replies: Array<OpenAIFakeReply | ReplyFunction<OpenAIFakeReply>>): void;
  /**
   * The next `/embeddings` calls fail with these errors, in order, in OpenAI's error envelope
   * (an unknown model's 404 `model_not_found`, a spent account's 429 `insufficient_quota`); the
   * calls after them embed again.
   */
  failEmbeddings(...errors: OpenAIFakeErrorReply[]): void;
  /** A reply, or a function of the request that makes one (benchmarks answer what they are asked). */
  setDefaultReply(reply: OpenAIFakeReply | ReplyFunction<OpenAIFakeReply> | undefined): void;
  /** Replies still queued. */
  readonly pending: number;
  lastRequest(): RecordedRequest;
  close(): Promise<void>;
}

const AZURE_DEPLOYMENT = /\/openai\/deployments\/([^/]+)\/(chat\/completions|embeddings)$/;

/** The context-window error exactly as OpenAI sends it. */
export function openAIContextExceededReply(limit = 128_000, requested = 130_512): OpenAIFakeErrorReply {
  return {
    error: {
      status: 400,
      message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${requested} tokens. Please reduce the length of the messages.`,
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  };
}

/** A rate limit with `retry-after` (seconds) and OpenAI's own `x-ratelimit-*` headers. */
export function openAIRateLimitReply(retryAfterSeconds = 1): OpenAIFakeErrorReply {
  return {
    error: {
      status: 429,
      message:
        'Rate limit reached for gpt-4o-mini in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1.',
      type: 'requests',
      code: 'rate_limit_exceeded',
      headers: { 'retry-after': String(retryAfterSeconds), 'x-ratelimit-remaining-requests': '0' },
    },
  };
}

export function openAIServerErrorReply(status = 503): OpenAIFakeErrorReply {
  return { error: { status, message: 'The server is overloaded or not ready yet.', type: 'server_error' } };
}

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const script = new ReplyScript<OpenAIFakeReply>();
  const embeddingFailures: OpenAIFakeErrorReply[] = [];
  const server = await startRecordingServer((request, res) =>
    route(request, res, script, options, embeddingFailures),
  );
  return {
    url: server.url,
    requests: server.requests,
    chatRequests: () => server.requests.filter((request) => request.path.endsWith('/chat/completions')),
    reply: (...replies) => script.push(...replies),
    failEmbeddings: (...errors) => embeddingFailures.push(...errors),
    setDefaultReply: (reply) => script.setDefault(reply),
    get pending() {
      return script.pending;
    },
    lastRequest: () => {
      const last = server.requests.at(-1);
      if (!last) throw new Error('the fake OpenAI API got no request');
      return last;
    },
    close: () => server.close(),
  };
}

function sendError(
  res: http.ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string | null = null,
  headers: Record<string, string> = {},
) {
  return writeJson(res, status, openAIErrorBody(message, type, code), {
    'x-request-id': 'req_fake',
    ...headers,
  });
}

async function route(
  request: RecordedRequest,
  res: http.ServerResponse,
  script: ReplyScript<OpenAIFakeReply>,
  options: FakeOpenAIOptions,
  embeddingFailures: OpenAIFakeErrorReply[],
): Promise<void> {
  const azure = AZURE_DEPLOYMENT.exec(request.path);
  const azureShaped =
    azure !== null || request.path.startsWith('/openai/') || request.path.startsWith('/models/');
  if (azureShaped && !request.query['api-version'] && !request.path.startsWith('/openai/v1/')) {
    return writeJson(res, 404, { error: { code: '404', message: 'Resource not found' } });
  }
  if (options.apiKey !== undefined) {
    const given = request.headers['api-key'] ?? request.headers.authorization?.replace(/^Bearer /, '');
    if (given !== options.apiKey) {
      const shown = given ? `${given.slice(0, 3)}***${given.slice(-2)}` : '';
      return sendError(
        res,
        401,
        given
          ? `Incorrect API key provided: ${shown}. You can find your API key at https://platform.openai.com/account/api-keys.`
          : "You didn't provide an API key.",
        'invalid_request_error',
        'invalid_api_key',
      );
    }
  }
  if (request.method === 'GET' && request.path.endsWith('/models')) {
    const ids = options.models ?? ['gpt-4o-mini', 'gpt-4o', 'text-embedding-3-small'];
    return writeJson(res, 200, {
      object: 'list',
      data: ids.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'system' })),
    });
  }
  if (request.method === 'POST' && request.path.endsWith('/embeddings')) {
    const failure = embeddingFailures.shift();
    if (failure) {
      const { status, message, type, code, headers } = failure.error;
      return sendError(res, status, message, type ?? 'invalid_request_error', code ?? null, headers);
    }
    return embeddings(request, res, azure?.[1]);
  }
  if (request.method === 'POST' && request.path.endsWith('/responses'))
    return responses(request, res, script);
  if (request.method !== 'POST' || !request.path.endsWith('/chat/completions')) {
    return sendError(res, 404, `Invalid URL (${request.method} ${request.path})`, 'invalid_request_error');
  }
  const problem = validateChatBody(request.body, options);
  if (problem) {
    const unprocessable = problem.startsWith('Extra inputs');
    return sendError(res, unprocessable ? 422 : 400, problem, 'invalid_request_error');
  }
  const body = request.body as {
    model: string;
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
  };
  const model = azure ? decodeURIComponent(azure[1] ?? '') : body.model;
  const reply = script.next(request);
  if (!reply)
    return sendError(res, 500, 'the fake OpenAI API has no scripted reply for this call', 'server_error');
  if ('raw' in reply) {
    res.writeHead(reply.raw.status, reply.raw.headers ?? {});
    return endResponse(res, reply.raw.body);
  }
  if ('error' in reply) {
    const { status, message, type, code, headers } = reply.error;
    return sendError(res, status, message, type ?? 'invalid_request_error', code ?? null, headers);
  }
  if ('delayMs' in reply && reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
  if (!body.stream) {
    if ('silentStream' in reply || 'streamThenFail' in reply) {
      return sendError(res, 500, 'scripted a stream-only reply for a non-streaming call', 'server_error');
    }
    return writeJson(res, 200, renderCompletion(reply, model), { 'x-request-id': 'req_fake' });
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-request-id': 'req_fake',
  });
  const includeUsage = body.stream_options?.include_usage === true;
  if ('silentStream' in reply) {
    const [first] = renderChunks({ text: '' }, model, includeUsage);
    if (first) await writeChunk(res, formatDataFrame(first));
    return waitForClientClose(res);
  }
  const turn = 'streamThenFail' in reply ? reply.streamThenFail.turn : reply;
  let frames = renderChunks(turn, model, includeUsage).map((chunk) => formatDataFrame(chunk));
  if ('streamThenFail' in reply) {
    const { afterChunks, error } = reply.streamThenFail;
    frames = [
      ...frames.slice(0, afterChunks),
      formatDataFrame({
        error: {
          message: error.message,
          type: error.type ?? 'server_error',
          param: null,
          code: error.code ?? null,
        },
      }),
    ];
  } else frames.push(formatDataFrame('[DONE]'));
  for (const frame of frames) {
    if (!(await writeChunk(res, frame))) return;
  }
  return endResponse(res);
}

/** The Responses API as image generation uses it: the `image_generation` tool, one scripted turn. */
function responses(
  request: RecordedRequest,
  res: http.ServerResponse,
  script: ReplyScript<OpenAIFakeReply>,
): Promise<void> {
  const body = request.body as { model?: unknown; input?: unknown; tools?: Array<{ type?: unknown }> };
  if (typeof body?.model !== 'string' || !Array.isArray(body.input))
    return sendError(res, 400, "Missing required parameter: 'model' or 'input'.", 'invalid_request_error');
  if (!(body.tools ?? []).some((tool) => tool.type === 'image_generation'))
    return sendError(
      res,
      400,
      'the fake answers /responses only for image generation',
      'invalid_request_error',
    );
  const reply = script.next(request);
  if (!reply)
    return sendError(res, 500, 'the fake OpenAI API has no scripted reply for this call', 'server_error');
  if ('error' in reply) {
    const { status, message, type, code, headers } = reply.error;
    return sendError(res, status, message, type ?? 'invalid_request_error', code ?? null, headers);
  }
  // A model that takes its time: nothing until the client hangs up (a cancelled drawing).
  if ('silentStream' in reply) return waitForClientClose(res);
  if (!('text' in reply) && !('image' in reply))
    return sendError(res, 500, 'scripted a chat-only reply for a /responses call', 'server_error');
  return writeJson(res, 200, renderImageResponse(reply, body.model), { 'x-request-id': 'req_fake' });
}

function embeddings(
  request: RecordedRequest,
  res: http.ServerResponse,
  deployment: string | undefined,
): Promise<void> {
  const body = request.body as
    { model?: unknown; input?: unknown; dimensions?: unknown; encoding_format?: unknown } | undefined;
  const inputs = typeof body?.input === 'string' ? [body.input] : body?.input;
  if (
    !Array.isArray(inputs) ||
    inputs.some((input) => typeof input !== 'string') ||
    (!deployment && typeof body?.model !== 'string')
  ) {
    return sendError(res, 400, "'input' is a required property", 'invalid_request_error');
  }
  const dimensions = typeof body?.dimensions === 'number' ? body.dimensions : 8;
  const texts = inputs as string[];
  const tokens = texts.reduce((sum, text) => sum + Math.max(1, Math.ceil(text.length / 4)), 0);
  return writeJson(res, 200, {
    object: 'list',
    data: texts.map((text, index) => {
      const vector = fakeEmbedding(text, dimensions);
      return {
        object: 'embedding',
        index,
        embedding: body?.encoding_format === 'base64' ? float32Base64(vector) : vector,
      };
    }),
    model: deployment ?? body?.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

/** `encoding_format: "base64"`: little-endian float32s, base64. */
function float32Base64(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}
