import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import type { ResponseHeaders } from './provider-adapter.js';

/**
 * One provider HTTP call on undici's handler interface directly (`dispatcher.dispatch`), for the
 * pass-through path: no response `Readable`, no async iterator, no `AbortSignal` listeners, which
 * together cost more CPU and allocation per proxied call than the proxying itself (bench/gateway).
 * `response` settles once the status and headers are in; then the body is read exactly once,
 * whole (`collect`) or chunk by chunk with backpressure (`stream`). `abort()` (the caller hung up)
 * ends the call wherever it is; what it was waiting for rejects.
 */
export class UpstreamExchange implements Dispatcher.DispatchHandler {
  status = 0;
  headers: ResponseHeaders = {};
  /** True once `abort()` was called (the caller went away). */
  aborted = false;
  readonly response: Promise<void>;

  private controller?: Dispatcher.DispatchController;
  private settleHead?: { resolve(): void; reject(error: Error): void };
  private chunks: Buffer[] = [];
  private size = 0;
  /** Bytes kept by `collect(limit)`; the rest is counted and dropped. */
  private keep = Number.POSITIVE_INFINITY;
  private ended = false;
  private failed?: Error;
  private sink?: (chunk: Buffer) => Promise<void> | void | false;
  private settleBody?: { resolve(): void; reject(error: Error): void };

  constructor() {
    this.response = new Promise<void>((resolve, reject) => (this.settleHead = { resolve, reject }));
    // A failure nobody awaits yet (the body is read later) must not be an unhandled rejection.
    this.response.catch(() => undefined);
  }

  /** Ends the call: a pending `response`, `collect` or `stream` rejects. */
  abort(): void {
    if (this.aborted || this.ended || this.failed) return;
    this.aborted = true;
    this.controller?.abort(abortError());
  }

  /** The whole body (the first `limit` bytes of it); resolves at its end. */
  collect(limit = Number.POSITIVE_INFINITY): Promise<Buffer> {
    this.keep = limit;
    return this.bodyDone().then(() => {
      const body = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
      this.chunks = [];
      return body.length > limit ? body.subarray(0, limit) : body;
    });
  }

  /**
   * Hands every chunk to `onChunk` as it arrives (the ones already in first); a returned promise
   * pauses the upstream until it settles, `false` aborts the call. Resolves at the end of the body.
   */
  stream(onChunk: (chunk: Buffer) => Promise<void> | void | false): Promise<void> {
    const buffered = this.chunks;
    this.chunks = [];
    this.sink = onChunk;
    for (const chunk of buffered) this.deliver(chunk);
    return this.bodyDone();
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.aborted) controller.abort(abortError());
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    if (statusCode < 200) return;
    this.status = statusCode;
    this.headers = flattenHeaders(headers);
    this.settleHead?.resolve();
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.sink) {
      this.deliver(chunk);
      return;
    }
    if (this.size < this.keep) this.chunks.push(chunk);
    this.size += chunk.length;
  }

  onResponseEnd(): void {
    this.ended = true;
    this.settleBody?.resolve();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.failed = error;
    this.settleHead?.reject(error);
    this.settleBody?.reject(error);
  }

  private deliver(chunk: Buffer): void {
    let pending: Promise<void> | void | false;
    try {
      pending = this.sink!(chunk);
    } catch (error) {
      this.controller?.abort(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (pending === false) {
      // The reader stopped (its caller went away): the call ends here.
      this.abort();
    } else if (pending) {
      this.controller?.pause();
      void pending.then(
        () => this.controller?.resume(),
        (error: unknown) => this.controller?.abort(error instanceof Error ? error : new Error(String(error))),
      );
    }
  }

  private bodyDone(): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.ended) return Promise.resolve();
    return new Promise<void>((resolve, reject) => (this.settleBody = { resolve, reject }));
  }
}

function abortError(): Error {
  return Object.assign(new Error('the caller went away'), { name: 'AbortError' });
}

export function flattenHeaders(headers: Record<string, string | string[] | undefined>): ResponseHeaders {
  const out: Record<string, string | undefined> = {};
  for (const name in headers) {
    const value = headers[name];
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
