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
  encodeEventFrame,
  encodeExceptionFrame,
  renderConverseResponse,
  renderConverseStream,
} from './bedrock-fake.render.js';
import {
  estimateTokens,
  renderEmbeddingBody,
  renderFoundationModels,
  validateInvokeBody,
} from './bedrock-fake.invoke.js';
import type {
  BedrockFakeErrorReply,
  BedrockFakeInvokeReply,
  BedrockFakeModelSummary,
  BedrockFakeModelsReply,
  BedrockFakeReply,
} from './bedrock-fake.types.js';
import { validateConverseBody } from './bedrock-fake.validation.js';

export interface FakeBedrockOptions {
  /** When set, SigV4 calls must be signed with this access key id (checked in the credential scope). */
  accessKeyId?: string;
  /** When set, the SigV4 credential scope must name this region. */
  region?: string;
  /** When set, bearer calls (Bedrock API keys) must carry this token. */
  bearerToken?: string;
}

/**
 * A fake Bedrock, over HTTP/1.1, runtime and control plane on one endpoint (as a `base_url`
 * override points both clients at): `POST /model/{modelId}/converse` (JSON) and
 * `/converse-stream` (`application/vnd.amazon.eventstream` frames), `POST /model/{modelId}/invoke`
 * (the model family's own JSON body; Titan and Cohere embeddings are checked and rendered), and
 * `GET /foundation-models` (`ListFoundationModels`). Auth is SigV4 or a bearer API key. Each
 * operation takes the next reply of its own script; every request is recorded in `requests`.
 */
export interface FakeBedrock {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Queues Converse replies for the next calls, in order (a function computes one from its request). */
  reply(...replies: Array<BedrockFakeReply | ReplyFunction<BedrockFakeReply>>): void;
  setDefaultReply(reply: BedrockFakeReply | undefined): void;
  /** Queues `InvokeModel` replies (parallel calls take them in arrival order: a function can answer by body). */
  replyInvoke(...replies: Array<BedrockFakeInvokeReply | ReplyFunction<BedrockFakeInvokeReply>>): void;
  setDefaultInvokeReply(
    reply: BedrockFakeInvokeReply | ReplyFunction<BedrockFakeInvokeReply> | undefined,
  ): void;
  /** The models `ListFoundationModels` answers with when nothing is queued (default: none). */
  setFoundationModels(models: BedrockFakeModelSummary[]): void;
  /** Queues `ListFoundationModels` replies (a list, or an error). */
  replyModels(...replies: BedrockFakeModelsReply[]): void;
  lastRequest(): RecordedRequest;
  close(): Promise<void>;
}

const CONVERSE_PATH = /^\/model\/([^/]+)\/(converse|converse-stream)$/;
const INVOKE_PATH = /^\/model\/([^/]+)\/invoke$/;
const MODELS_PATH = '/foundation-models';
const SIGV4 =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/;

/** The context-window error as Bedrock sends it for a too-long prompt. */
export function bedrockContextExceededReply(
  message = 'Input is too long for requested model.',
): BedrockFakeErrorReply {
  return { error: { status: 400, type: 'ValidationException', message } };
}

export async function startFakeBedrock(options: FakeBedrockOptions = {}): Promise<FakeBedrock> {
  const script = new ReplyScript<BedrockFakeReply>();
  const scripts: Scripts = {
    invoke: new ReplyScript<BedrockFakeInvokeReply>(),
    models: new ReplyScript<BedrockFakeModelsReply>(),
  };
  scripts.models.setDefault({ models: [] });
  const server = await startRecordingServer((request, res) => {
    const denied = authProblem(request, options);
    if (INVOKE_PATH.test(request.path) && request.method === 'POST')
      return denied ? sendError(res, denied) : invoke(request, res, scripts.invoke);
    if (request.path === MODELS_PATH && request.method === 'GET')
      return denied ? sendError(res, denied) : listModels(request, res, scripts.models, options);
    return route(request, res, script, options);
  });
  return {
    url: server.url,
    requests: server.requests,
    reply: (...replies) => script.push(...replies),
    setDefaultReply: (reply) => script.setDefault(reply),
    replyInvoke: (...replies) => scripts.invoke.push(...replies),
    setDefaultInvokeReply: (reply) => scripts.invoke.setDefault(reply),
    setFoundationModels: (models) => scripts.models.setDefault({ models }),
    replyModels: (...replies) => scripts.models.push(...replies),
    lastRequest: () => {
      const last = server.requests.at(-1);
      if (!last) throw new Error('the fake Bedrock runtime got no request');
      return last;
    },
    close: () => server.close(),
  };
}

/**
 * The next scripted reply for `request`, or the error to answer instead: the scripted error, or a
 * 500 naming `what` was not scripted.
 */
function nextReply<R extends object>(
  script: ReplyScript<R>,
  request: RecordedRequest,
  what: string,
): { reply: Exclude<R, BedrockFakeErrorReply> } | BedrockFakeErrorReply {
  const reply = script.next(request);
  if (!reply)
    return {
      error: {
        status: 500,
        type: 'InternalServerException',
        message: `the fake Bedrock runtime has no scripted ${what} for this call`,
      },
    };
  if ('error' in reply) return reply as BedrockFakeErrorReply;
  return { reply: reply as Exclude<R, BedrockFakeErrorReply> };
}

function sendError(res: http.ServerResponse, error: BedrockFakeErrorReply['error']): Promise<void> {
  return writeJson(
    res,
    error.status,
    { message: error.message },
    {
      'x-amzn-errortype': `${error.type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
      'x-amzn-requestid': 'fake-request-id',
      ...error.headers,
    },
  );
}

/** Why the caller's authentication is refused, or undefined when it passes. */
function authProblem(
  request: RecordedRequest,
  options: FakeBedrockOptions,
): BedrockFakeErrorReply['error'] | undefined {
  const authorization = request.headers.authorization ?? '';
  if (authorization.startsWith('Bearer ')) {
    if (options.bearerToken !== undefined && authorization !== `Bearer ${options.bearerToken}`) {
      return {
        status: 403,
        type: 'AccessDeniedException',
        message: 'Authentication failed: Please make sure your API Key is valid.',
      };
    }
    return undefined;
  }
  const sigv4 = SIGV4.exec(authorization);
  if (!sigv4) {
    return {
      status: 403,
      type: 'MissingAuthenticationTokenException',
      message: 'Missing Authentication Token',
    };
  }
  const [, accessKeyId, , region, service] = sigv4;
  if (service !== 'bedrock' || (options.region !== undefined && region !== options.region)) {
    return {
      status: 403,
      type: 'InvalidSignatureException',
      message: `Credential should be scoped to a valid region and service 'bedrock'.`,
    };
  }
  if (options.accessKeyId !== undefined && accessKeyId !== options.accessKeyId) {
    return {
      status: 403,
      type: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    };
  }
  if (!request.headers['x-amz-date'])
    return { status: 403, type: 'IncompleteSignatureException', message: 'Missing x-amz-date.' };
  return undefined;
}

async function route(
  request: RecordedRequest,
  res: http.ServerResponse,
  script: ReplyScript<BedrockFakeReply>,
  options: FakeBedrockOptions,
): Promise<void> {
  const match = CONVERSE_PATH.exec(request.path);
  if (request.method !== 'POST' || !match) {
    return sendError(res, {
      status: 404,
      type: 'UnknownOperationException',
      message: `Unknown operation ${request.method} ${request.path}`,
    });
  }
  const denied = authProblem(request, options);
  if (denied) return sendError(res, denied);
  const problem = validateConverseBody(request.body);
  if (problem) return sendError(res, { status: 400, type: 'ValidationException', message: problem });

  const next = nextReply(script, request, 'reply');
  if ('error' in next) return sendError(res, next.error);
  const { reply } = next;
  if (match[2] === 'converse') {
    if (!('content' in reply))
      return sendError(res, {
        status: 500,
        type: 'InternalServerException',
        message: 'scripted a stream-only reply for Converse',
      });
    return writeJson(res, 200, renderConverseResponse(reply), { 'x-amzn-requestid': 'fake-request-id' });
  }
  res.writeHead(200, {
    'content-type': 'application/vnd.amazon.eventstream',
    'x-amzn-requestid': 'fake-request-id',
  });
  if ('silentStream' in reply) {
    await writeChunk(res, encodeEventFrame({ type: 'messageStart', body: { role: 'assistant' } }));
    return waitForClientClose(res);
  }
  const turn = 'streamThenFail' in reply ? reply.streamThenFail.turn : reply;
  let frames = renderConverseStream(turn).map(encodeEventFrame);
  if ('streamThenFail' in reply) {
    frames = [
      ...frames.slice(0, reply.streamThenFail.afterEvents),
      encodeExceptionFrame(reply.streamThenFail.exceptionType, reply.streamThenFail.message),
    ];
  }
  for (const frame of frames) {
    if (!(await writeChunk(res, frame))) return;
  }
  return endResponse(res);
}

interface Scripts {
  readonly invoke: ReplyScript<BedrockFakeInvokeReply>;
  readonly models: ReplyScript<BedrockFakeModelsReply>;
}

/** `POST /model/{modelId}/invoke`: the body checked for the model family, then the scripted answer. */
async function invoke(
  request: RecordedRequest,
  res: http.ServerResponse,
  script: ReplyScript<BedrockFakeInvokeReply>,
): Promise<void> {
  const modelId = decodeURIComponent(INVOKE_PATH.exec(request.path)![1]);
  if (request.body === undefined)
    return sendError(res, {
      status: 400,
      type: 'ValidationException',
      message: 'Malformed input request: the body is not JSON, please reformat your input and try again.',
    });
  const problem = validateInvokeBody(modelId, request.headers['content-type'], request.body);
  if (problem) return sendError(res, { status: 400, type: 'ValidationException', message: problem });
  const next = nextReply(script, request, 'InvokeModel reply');
  if ('error' in next) return sendError(res, next.error);
  const { reply } = next;
  const inputTokens = reply.inputTokens ?? estimateTokens(request.body);
  const body =
    'embeddings' in reply ? renderEmbeddingBody(modelId, request.body, reply, inputTokens) : reply.body;
  return writeJson(res, 200, body, {
    'x-amzn-requestid': 'fake-request-id',
    'x-amzn-bedrock-invocation-latency': '12',
    'x-amzn-bedrock-input-token-count': String(inputTokens),
    ...('outputTokens' in reply && reply.outputTokens !== undefined
      ? { 'x-amzn-bedrock-output-token-count': String(reply.outputTokens) }
      : {}),
  });
}

/** `GET /foundation-models` (`ListFoundationModels`), filtered by its query parameters. */
async function listModels(
  request: RecordedRequest,
  res: http.ServerResponse,
  script: ReplyScript<BedrockFakeModelsReply>,
  options: FakeBedrockOptions,
): Promise<void> {
  const next = nextReply(script, request, 'ListFoundationModels reply');
  if ('error' in next) return sendError(res, next.error);
  return writeJson(
    res,
    200,
    renderFoundationModels(next.reply.models, request.query, options.region ?? 'us-east-1'),
    {
      'x-amzn-requestid': 'fake-request-id',
    },
  );
}
