import type { ServerResponse } from 'node:http';
import { toHttpError } from './openai-error.mapper.js';
import { isEventStream } from './sse-response.writer.js';

/**
 * Answers a failure in OpenAI's error shape. Before the answer started: the mapped status, with
 * `Retry-After` for rate limits. Inside an event stream that already started: an error frame,
 * then the end of the stream. After a client hung up: nothing.
 */
export function sendHttpError(res: ServerResponse, error: unknown): void {
  if (res.destroyed || res.writableEnded) return;
  const failure = toHttpError(error);
  const json = JSON.stringify(failure.body);
  if (res.headersSent) {
    if (isEventStream(res)) res.end(`data: ${json}\n\n`);
    else res.end();
    return;
  }
  res.writeHead(failure.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(json),
    ...(failure.retryAfterSeconds !== undefined ? { 'retry-after': String(failure.retryAfterSeconds) } : {}),
  });
  res.end(json);
}
