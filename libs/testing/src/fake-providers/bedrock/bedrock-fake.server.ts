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
import type { BedrockFakeErrorReply, BedrockFakeReply } from './bedrock-fake.types.js';
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
 * A fake Bedrock runtime: `POST /model/{modelId}/converse` (JSON) and `/converse-stream`
 * (`application/vnd.amazon.eventstream` frames), over HTTP/1.1. Auth is SigV4 or a bearer API key.
 * Each call takes the next scripted reply.
 */
export interface FakeBedrock {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Queues replies for the next calls, in order (a function computes one from its request). */
  reply(...replies: Array<BedrockFakeReply | ReplyFunction<BedrockFakeReply>>): void;
  setDefaultReply(reply: BedrockFakeReply | undefined): void;
  lastRequest(): RecordedRequest;
  close(): Promise<void>;
}

const CONVERSE_PATH = /^\/model\/([^/]+)\/(converse|converse-stream)$/;
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
  const server = await startRecordingServer((request, res) => route(request, res, script, options));
  return {
    url: server.url,
    requests: server.requests,
    reply: (...replies) => script.push(...replies),
    setDefaultReply: (reply) => script.setDefault(reply),
    lastRequest: () => {
      const last = server.requests.at(-1);
      if (!last) throw new Error('the fake Bedrock runtime got no request');
      return last;
    },
    close: () => server.close(),
  };
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

  const reply = script.next(request);
  if (!reply)
    return sendError(res, {
      status: 500,
      type: 'InternalServerException',
      message: 'the fake Bedrock runtime has no scripted reply for this call',
    });
  if ('error' in reply) return sendError(res, reply.error);
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
