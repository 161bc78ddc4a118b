import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { SERVICE_HEADER } from '@flowmesh/bootstrap';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import { ChatCompletionsService } from './chat-completions.service.js';
import { EDGE_CONFIG, type EdgeConfig } from './edge.config.js';
import { parseJsonBody, readRequestBody } from './read-request-body.js';
import { sendHttpError } from './send-http-error.js';

const CHAT_PATH = '/v1/chat/completions';

/**
 * `POST /v1/chat/completions`, every one of them, straight from the HTTP server to
 * `ChatCompletionsService`: the hottest route skips Express (router, body parsers), Nest's
 * pipeline and the generic HTTP server instrumentation, which together cost more CPU per proxied
 * call than the proxying itself (bench/gateway measures it). Tracing is kept where it matters: the
 * caller's `traceparent` is extracted here, so the call's GenAI span (`chat <model>`, from
 * `LlmCallRecorder`) continues the caller's trace, and log lines carry its ids. The body is read
 * raw (decoded first when it came compressed), parsed once for routing, and forwarded as received
 * on the pass-through path. Every other request goes to the server's usual `request` handling.
 */
@Injectable()
export class ChatCompletionsRoute implements OnApplicationBootstrap {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly chat: ChatCompletionsService,
    @Inject(EDGE_CONFIG) private readonly config: EdgeConfig,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server) return;
    // The instance's own `emit`, ahead of the prototype's (which the HTTP instrumentation wraps).
    const emit = Reflect.get(server, 'emit') as (this: Server, ...args: unknown[]) => boolean;
    const route = (req: IncomingMessage, res: ServerResponse) => this.take(req, res);
    server.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
      if (event === 'request' && route(args[0] as IncomingMessage, args[1] as ServerResponse)) return true;
      return Reflect.apply<Server, unknown[], boolean>(emit, this, [event, ...args]);
    } as Server['emit'];
  }

  /** Serves the request when it is the chat route; false leaves it to the usual handling. */
  private take(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'POST' || !isChatPath(req.url ?? '')) return false;
    res.setHeader(SERVICE_HEADER, 'llm-gateway');
    const traced = req.headers.traceparent !== undefined || req.headers.baggage !== undefined;
    // Without trace headers there is nothing to extract: already in the root context, it just runs.
    if (!traced && context.active() === ROOT_CONTEXT) {
      void this.serve(req, res);
      return true;
    }
    const parent = traced ? propagation.extract(ROOT_CONTEXT, req.headers) : ROOT_CONTEXT;
    context.with(parent, () => void this.serve(req, res));
    return true;
  }

  private async serve(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> {
    let raw: Buffer;
    try {
      raw = await readRequestBody(req, this.config.maxBodyBytes);
      req.body = parseJsonBody(raw);
    } catch (error) {
      sendHttpError(res, error);
      return;
    }
    await this.chat.handle(req, res, {}, raw);
  }
}

/** The chat route as Express matched it (routes are not case-sensitive, a trailing slash is optional). */
function isChatPath(url: string): boolean {
  if (url === CHAT_PATH) return true;
  const query = url.indexOf('?');
  const path = (query === -1 ? url : url.slice(0, query)).toLowerCase();
  return path === CHAT_PATH || path === `${CHAT_PATH}/`;
}
