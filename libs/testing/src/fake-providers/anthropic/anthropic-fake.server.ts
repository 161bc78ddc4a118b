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
  anthropicErrorBody,
  formatSseEvent,
  renderAnthropicMessage,
  renderAnthropicStream,
} from './anthropic-fake.render.js';
import type { AnthropicFakeErrorReply, AnthropicFakeReply } from './anthropic-fake.types.js';
import { validateAnthropicBody } from './anthropic-fake.validation.js';

export interface FakeAnthropicOptions {
  /** When set, direct calls must carry it as `x-api-key` or `Authorization: Bearer`. */
  apiKey?: string;
  /** When set, Vertex calls must carry it as `Authorization: Bearer`. */
  vertexAccessToken?: string;
  /** Refuse a thinking-enabled tool loop whose last assistant turn lost its thinking block (the API does). Default true. */
  enforceThinkingReplay?: boolean;
}

/**
 * A fake Anthropic Messages API: `POST /v1/messages` (optionally under a base path) and the Vertex
 * shape `POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/{model}:rawPredict|streamRawPredict`.
 * Each call takes the next scripted reply; a turn renders as JSON or SSE as the request asks.
 */
export interface FakeAnthropic {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Queues replies for the next calls, in order. */
  reply(...replies: Array<AnthropicFakeReply | ReplyFunction<AnthropicFakeReply>>): void;
  /** The reply once the queue is empty. */
  setDefaultReply(reply: AnthropicFakeReply | undefined): void;
  /** The most recent request (throws when there was none). */
  lastRequest(): RecordedRequest;
  close(): Promise<void>;
}

const VERTEX_PATH =
  /\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/:]+):(rawPredict|streamRawPredict)$/;

/** The context-window error exactly as the API sends it. */
export function anthropicContextExceededReply(tokens = 208_310, limit = 200_000): AnthropicFakeErrorReply {
  return {
    error: {
      status: 400,
      type: 'invalid_request_error',
      message: `prompt is too long: ${tokens} tokens > ${limit} maximum`,
    },
  };
}

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const script = new ReplyScript<AnthropicFakeReply>();
  const server = await startRecordingServer((request, res) => route(request, res, script, options));
  return {
    url: server.url,
    requests: server.requests,
    reply: (...replies) => script.push(...replies),
    setDefaultReply: (reply) => script.setDefault(reply),
    lastRequest: () => {
      const last = server.requests.at(-1);
      if (!last) throw new Error('the fake Anthropic API got no request');
      return last;
    },
    close: () => server.close(),
  };
}

function sendError(
  res: http.ServerResponse,
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
) {
  return writeJson(res, status, anthropicErrorBody(type, message), { 'request-id': 'req_fake', ...headers });
}

async function route(
  request: RecordedRequest,
  res: http.ServerResponse,
  script: ReplyScript<AnthropicFakeReply>,
  options: FakeAnthropicOptions,
): Promise<void> {
  const vertexMatch = VERTEX_PATH.exec(request.path);
  const direct = request.path.endsWith('/v1/messages');
  if (request.method !== 'POST' || (!vertexMatch && !direct)) {
    return sendError(res, 404, 'not_found_error', `Not Found: ${request.method} ${request.path}`);
  }
  const authorization = request.headers.authorization;
  if (vertexMatch) {
    if (options.vertexAccessToken !== undefined && authorization !== `Bearer ${options.vertexAccessToken}`) {
      return writeJson(res, 401, {
        error: {
          code: 401,
          message: 'Request had invalid authentication credentials.',
          status: 'UNAUTHENTICATED',
        },
      });
    }
  } else if (options.apiKey !== undefined) {
    const given = request.headers['x-api-key'] ?? authorization?.replace(/^Bearer /, '');
    if (given !== options.apiKey) return sendError(res, 401, 'authentication_error', 'invalid x-api-key');
  }
  const problem = validateAnthropicBody(request.body, {
    apiVersion: request.headers['anthropic-version'],
    vertex: vertexMatch !== null,
    enforceThinkingReplay: options.enforceThinkingReplay ?? true,
  });
  if (problem) return sendError(res, 400, 'invalid_request_error', problem);

  const body = request.body as { model?: string; stream?: boolean };
  const model = vertexMatch ? decodeURIComponent(vertexMatch[3] ?? '') : (body.model ?? '');
  const reply = script.next(request);
  if (!reply)
    return sendError(res, 500, 'api_error', 'the fake Anthropic API has no scripted reply for this call');
  if ('raw' in reply) {
    res.writeHead(reply.raw.status, reply.raw.headers ?? {});
    return endResponse(res, reply.raw.body);
  }
  if ('error' in reply)
    return sendError(res, reply.error.status, reply.error.type, reply.error.message, reply.error.headers);
  if (!body.stream) {
    if (!('content' in reply))
      return sendError(res, 500, 'api_error', 'scripted a stream-only reply for a non-streaming call');
    return writeJson(res, 200, renderAnthropicMessage(reply, model), { 'request-id': 'req_fake' });
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': 'req_fake',
  });
  if ('silentStream' in reply) {
    const [start] = renderAnthropicStream({ content: [] }, model);
    if (start) await writeChunk(res, formatSseEvent(start));
    return waitForClientClose(res);
  }
  const turn = 'streamThenFail' in reply ? reply.streamThenFail.turn : reply;
  let events = renderAnthropicStream(turn, model);
  if ('streamThenFail' in reply) {
    events = [
      ...events.slice(0, reply.streamThenFail.afterEvents),
      { event: 'error', data: { type: 'error', error: reply.streamThenFail.error } },
    ];
  }
  for (const event of events) {
    if (!(await writeChunk(res, formatSseEvent(event)))) return;
  }
  return endResponse(res);
}
