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
  geminiErrorBody,
  renderGeminiBlockedPrompt,
  renderGeminiResponse,
  renderGeminiStream,
} from './gemini-fake.render.js';
import type { GeminiFakeErrorReply, GeminiFakeReply } from './gemini-fake.types.js';
import { validateGeminiBody } from './gemini-fake.validation.js';

export interface FakeGeminiOptions {
  /** When set, calls must carry it as `x-goog-api-key` or `?key=`. */
  apiKey?: string;
  /** Refuse a model turn whose first function call lost its `thoughtSignature` (Gemini 3 does). */
  requireThoughtSignatures?: boolean;
}

/**
 * A fake Gemini API: `POST …/models/{model}:generateContent` and `:streamGenerateContent`
 * (`?alt=sse` for SSE with CRLF line ends and no `[DONE]`; without it, one JSON array), under
 * `/v1beta` or a Vertex `…/publishers/google` path. Each call takes the next scripted reply.
 */
export interface FakeGemini {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Queues replies for the next calls, in order (a function computes one from its request). */
  reply(...replies: Array<GeminiFakeReply | ReplyFunction<GeminiFakeReply>>): void;
  setDefaultReply(reply: GeminiFakeReply | undefined): void;
  lastRequest(): RecordedRequest;
  close(): Promise<void>;
}

const MODEL_PATH = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

/** The context-window error exactly as the API sends it. */
export function geminiContextExceededReply(tokens = 1_196_265, limit = 1_048_576): GeminiFakeErrorReply {
  return {
    error: {
      httpStatus: 400,
      status: 'INVALID_ARGUMENT',
      message: `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${limit}).`,
    },
  };
}

/** A quota error with the `RetryInfo` detail Gemini uses to say when to come back. */
export function geminiRateLimitedReply(retryDelaySeconds = 20): GeminiFakeErrorReply {
  return {
    error: {
      httpStatus: 429,
      status: 'RESOURCE_EXHAUSTED',
      message: 'You exceeded your current quota, please check your plan and billing details.',
      details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryDelaySeconds}s` }],
    },
  };
}

export async function startFakeGemini(options: FakeGeminiOptions = {}): Promise<FakeGemini> {
  const script = new ReplyScript<GeminiFakeReply>();
  const server = await startRecordingServer((request, res) => route(request, res, script, options));
  return {
    url: server.url,
    requests: server.requests,
    reply: (...replies) => script.push(...replies),
    setDefaultReply: (reply) => script.setDefault(reply),
    lastRequest: () => {
      const last = server.requests.at(-1);
      if (!last) throw new Error('the fake Gemini API got no request');
      return last;
    },
    close: () => server.close(),
  };
}

function sendError(res: http.ServerResponse, reply: GeminiFakeErrorReply['error']): Promise<void> {
  return writeJson(
    res,
    reply.httpStatus,
    geminiErrorBody(reply.httpStatus, reply.status, reply.message, reply.details),
    reply.headers,
  );
}

async function route(
  request: RecordedRequest,
  res: http.ServerResponse,
  script: ReplyScript<GeminiFakeReply>,
  options: FakeGeminiOptions,
): Promise<void> {
  const match = MODEL_PATH.exec(request.path);
  if (request.method !== 'POST' || !match) {
    return sendError(res, {
      httpStatus: 404,
      status: 'NOT_FOUND',
      message: `Method not found: ${request.method} ${request.path}`,
    });
  }
  if (options.apiKey !== undefined) {
    const given = request.headers['x-goog-api-key'] ?? request.query.key;
    if (given === undefined) {
      return sendError(res, {
        httpStatus: 403,
        status: 'PERMISSION_DENIED',
        message:
          "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      });
    }
    if (given !== options.apiKey) {
      return sendError(res, {
        httpStatus: 400,
        status: 'INVALID_ARGUMENT',
        message: 'API key not valid. Please pass a valid API key.',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'API_KEY_INVALID',
            domain: 'googleapis.com',
          },
        ],
      });
    }
  }
  const problem = validateGeminiBody(request.body, {
    requireThoughtSignatures: options.requireThoughtSignatures ?? false,
  });
  if (problem) return sendError(res, { httpStatus: 400, status: 'INVALID_ARGUMENT', message: problem });

  const model = decodeURIComponent(match[1] ?? '');
  const streaming = match[2] === 'streamGenerateContent';
  const sse = streaming && request.query.alt === 'sse';
  const reply = script.next(request);
  if (!reply)
    return sendError(res, {
      httpStatus: 500,
      status: 'INTERNAL',
      message: 'the fake Gemini API has no scripted reply for this call',
    });
  if ('raw' in reply) {
    res.writeHead(reply.raw.status, reply.raw.headers ?? {});
    return endResponse(res, reply.raw.body);
  }
  if ('error' in reply) return sendError(res, reply.error);
  if ('silentStream' in reply) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    return waitForClientClose(res);
  }
  const chunks =
    'blockedPrompt' in reply
      ? [renderGeminiBlockedPrompt(reply.blockedPrompt.blockReason, model)]
      : streaming
        ? renderGeminiStream(reply, model)
        : [renderGeminiResponse(reply, model)];
  if (!streaming) return writeJson(res, 200, chunks[0]);
  if (!sse) return writeJson(res, 200, chunks);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const chunk of chunks) {
    if (!(await writeChunk(res, `data: ${JSON.stringify(chunk)}\r\n\r\n`))) return;
  }
  return endResponse(res);
}
