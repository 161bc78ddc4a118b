import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a fake provider got, as it arrived on the wire. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string, percent-encoding kept as sent. */
  path: string;
  query: Record<string, string>;
  /** Header names lowercased; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The body as text (empty when there was none). */
  rawBody: string;
  /** The body parsed as JSON, or `undefined` when it was not JSON. */
  body: unknown;
  /** The client closed the connection before the fake finished its reply (a cancelled call). */
  aborted: boolean;
}

/** Writes one scripted reply; resolves when the reply is complete or the client went away. */
export type ReplyWriter = (request: RecordedRequest, res: http.ServerResponse) => Promise<void>;

export interface RecordingServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * The HTTP plumbing every fake provider shares: listens on a random 127.0.0.1 port, records each
 * request whole before handing it to the vendor's router, and notices a client that hangs up
 * mid-reply (so a test can assert that cancelling a call aborted the upstream request).
 */
export async function startRecordingServer(route: ReplyWriter): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = recordRequest(req, Buffer.concat(chunks).toString('utf8'));
      requests.push(recorded);
      res.on('close', () => {
        if (!res.writableFinished) recorded.aborted = true;
      });
      route(recorded, res).catch((error: unknown) => {
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`fake provider failed: ${error instanceof Error ? error.message : String(error)}`);
        } else res.destroy();
      });
    });
  });
  // Keep-alive sockets would hold close() open for the idle timeout.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function recordRequest(req: http.IncomingMessage, rawBody: string): RecordedRequest {
  const target = req.url ?? '/';
  const queryAt = target.indexOf('?');
  const path = queryAt < 0 ? target : target.slice(0, queryAt);
  const query = Object.fromEntries(new URLSearchParams(queryAt < 0 ? '' : target.slice(queryAt + 1)));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  let body: unknown;
  try {
    body = rawBody ? (JSON.parse(rawBody) as unknown) : undefined;
  } catch {
    body = undefined;
  }
  return { method: req.method ?? 'GET', path, query, headers, rawBody, body, aborted: false };
}

/** A reply computed from the request it answers (to echo a name the gateway rewrote, say). */
export type ReplyFunction<T> = (request: RecordedRequest) => T;

/** Scripted replies, consumed in order; a call with nothing scripted is a test bug, said loudly. */
export class ReplyScript<T> {
  private readonly queue: Array<T | ReplyFunction<T>> = [];
  private fallback: T | ReplyFunction<T> | undefined;

  push(...replies: Array<T | ReplyFunction<T>>): void {
    this.queue.push(...replies);
  }

  /** The reply for every request once the queue is empty (benchmarks, retries). */
  setDefault(reply: T | ReplyFunction<T> | undefined): void {
    this.fallback = reply;
  }

  next(request?: RecordedRequest): T | undefined {
    const reply = this.queue.shift() ?? this.fallback;
    if (typeof reply !== 'function') return reply;
    if (!request) throw new Error('this fake does not take reply functions');
    return (reply as ReplyFunction<T>)(request);
  }

  get pending(): number {
    return this.queue.length;
  }
}

/** Writes a JSON body with the given status and headers. */
export function writeJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<void> {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  return endResponse(res, text);
}

export function endResponse(res: http.ServerResponse, last?: string | Uint8Array): Promise<void> {
  return new Promise<void>((resolve) => {
    if (last === undefined) res.end(resolve);
    else res.end(last, resolve);
  });
}

/** Writes one chunk, waiting for drain, and resolves false when the client is gone. */
export function writeChunk(res: http.ServerResponse, chunk: string | Uint8Array): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const ok = res.write(chunk);
    if (ok) resolve(true);
    else res.once('drain', () => resolve(!res.destroyed));
  });
}

/** Keeps a response open without a byte until the client hangs up (a silent upstream). */
export function waitForClientClose(res: http.ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise<void>((resolve) => res.once('close', () => resolve()));
}

/** Splits text into pieces of at most `size` characters (a stream's deltas). */
export function splitText(text: string, size: number): string[] {
  if (text.length === 0) return [''];
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces;
}
