import type { ServerResponse } from 'node:http';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  // Reverse proxies (nginx) buffer event streams unless told not to.
  'x-accel-buffering': 'no',
} as const;

const KEEPALIVE = ': keepalive\n\n';

/** Responses that became event streams: a late error must go out as a frame, not a status. */
const eventStreams = new WeakSet<ServerResponse>();

export function isEventStream(res: ServerResponse): boolean {
  return eventStreams.has(res);
}

/**
 * An event-stream response that sends `: keepalive` comments while the upstream is silent, so
 * proxies and clients with idle timeouts keep the connection through a slow first token. One
 * timer per stream, re-armed (`refresh()`, no allocation) by every write; a keepalive goes out
 * only at an event boundary, never inside an event a pass-through upstream left half-written.
 */
export class SseResponseWriter {
  private readonly timer: NodeJS.Timeout;
  private atBoundary = true;
  private closed = false;

  constructor(
    private readonly res: ServerResponse,
    keepaliveMs: number,
    status = 200,
    extraHeaders: Readonly<Record<string, string>> = {},
  ) {
    eventStreams.add(res);
    res.writeHead(status, { ...SSE_HEADERS, ...extraHeaders });
    // Headers go out now: a client sees the stream open before the first token.
    res.flushHeaders();
    this.timer = setTimeout(() => this.keepalive(), keepaliveMs);
    this.timer.unref();
    res.once('close', () => this.stop());
  }

  /** False once the client went away. */
  get open(): boolean {
    return !this.closed && !this.res.destroyed;
  }

  /** Writes frames; resolves when the socket can take more (backpressure). */
  write(chunk: string | Uint8Array): Promise<void> | void {
    if (!this.open || chunk.length === 0) return;
    this.atBoundary = endsAtBoundary(chunk);
    this.timer.refresh();
    if (!this.res.write(chunk)) {
      return new Promise((resolve) => {
        const done = () => {
          this.res.off('drain', done);
          this.res.off('close', done);
          resolve();
        };
        this.res.once('drain', done);
        this.res.once('close', done);
      });
    }
  }

  end(chunk?: string): void {
    if (!this.open) return this.stop();
    this.stop();
    if (chunk) this.res.end(chunk);
    else this.res.end();
  }

  private keepalive(): void {
    if (!this.open) return;
    if (this.atBoundary) this.res.write(KEEPALIVE);
    this.timer.refresh();
  }

  private stop(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }
}

const LF = 10;
const CR = 13;

function endsAtBoundary(chunk: string | Uint8Array): boolean {
  const length = chunk.length;
  if (typeof chunk === 'string') return chunk.endsWith('\n\n') || chunk.endsWith('\r\n\r\n');
  const last = chunk[length - 1];
  const before = chunk[length - 2];
  return last === LF && (before === LF || (before === CR && chunk[length - 3] === LF));
}

/**
 * An event stream that opens on its first write, or, when the upstream stays silent that long,
 * after one keepalive interval with a keepalive: a slow first token (or a long wait for a
 * provider's headers) keeps the connection alive, while a failure that comes sooner can still be
 * answered with a real HTTP status.
 */
export class LazySseResponse {
  private writer?: SseResponseWriter;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    private readonly keepaliveMs: number,
  ) {
    this.timer = setTimeout(() => {
      if (this.res.headersSent || this.res.destroyed) return;
      void this.open().write(KEEPALIVE);
    }, keepaliveMs);
    this.timer.unref();
  }

  get opened(): boolean {
    return this.writer !== undefined;
  }

  /** The stream, opened now if it was not yet. */
  open(): SseResponseWriter {
    clearTimeout(this.timer);
    this.writer ??= new SseResponseWriter(this.res, this.keepaliveMs);
    return this.writer;
  }

  /** The response will not be an event stream (it was answered otherwise): no early open. */
  dispose(): void {
    clearTimeout(this.timer);
  }
}
