import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { MeshError } from '@flowmesh/contracts';
import { SERVICE_HEADER } from '@flowmesh/bootstrap';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ChatCompletionsService } from './chat-completions.service.js';
import { EDGE_CONFIG, type EdgeConfig } from './edge.config.js';
import { sendHttpError } from './send-http-error.js';

const CHAT_PATH = '/v1/chat/completions';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * `POST /v1/chat/completions` straight from the HTTP server to `ChatCompletionsService`, ahead
 * of Express: the hottest route skips the router, the body parsers and Nest's pipeline, which
 * cost more CPU per proxied call than the proxying itself (bench/gateway measures it). The body
 * is read raw and forwarded raw on the pass-through path (parsed once, for routing and checks,
 * never re-serialized). Every other request goes to Express unchanged; the OpenTelemetry HTTP
 * span still wraps both, since it hooks the server's `request` event. Errors get the same
 * OpenAI-shaped answers as the Nest routes.
 */
@Injectable()
export class ChatFastLane implements OnApplicationBootstrap {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly chat: ChatCompletionsService,
    @Inject(EDGE_CONFIG) private readonly config: EdgeConfig,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server) return;
    const others = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      // A compressed body is left to Express, whose parser inflates it.
      const hot = req.method === 'POST' && (req.url === CHAT_PATH || req.url?.startsWith(`${CHAT_PATH}?`));
      if (hot && req.headers['content-encoding'] === undefined) {
        res.setHeader(SERVICE_HEADER, 'llm-gateway');
        void this.serve(req, res);
        return;
      }
      for (const listener of others) listener.call(server, req, res);
    });
  }

  private async serve(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> {
    let raw: Buffer;
    try {
      raw = await readBody(req, this.config.maxBodyBytes);
      req.body = raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as unknown) : undefined;
    } catch (error) {
      sendHttpError(
        res,
        error instanceof MeshError
          ? error
          : new MeshError('VALIDATION_FAILED', 'the body is not valid JSON', { param: 'body' }),
      );
      return;
    }
    await this.chat.handle(req, res, {}, raw);
  }
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
    req.once('error', reject);
  });
}

function tooLarge(limit: number): MeshError {
  return new MeshError('LIMIT_EXCEEDED', `the request body is larger than ${limit} bytes`, { param: 'body' });
}
