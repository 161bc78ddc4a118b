import type { IncomingMessage, ServerResponse } from 'node:http';

/** A request under `/api/r` once its body was read: its bytes, or that it was over the limit. */
export interface RawBodyRequest extends IncomingMessage {
  /** The body as received (empty when there was none); absent when it was too large. */
  rawBody?: Buffer;
  /** The body passed the limit: the route answers 413 and nothing reads it further. */
  rawBodyTooLarge?: boolean;
}

/**
 * Reads the body of every request it sees as bytes, up to `limitBytes`, before any parser does:
 * HTTP routes check signatures over the exact bytes received and hand user code the raw text,
 * which a parsed and re-serialized JSON body would not give. Mounted on `/api/r` ahead of the
 * app's JSON parser (which then leaves the request alone, its stream being read). A body over the
 * limit (by its `content-length`, or as it streams) is not kept: the route answers 413 and Node
 * discards the rest.
 */
export function rawBodyReader(limitBytes: number) {
  return (req: RawBodyRequest, _res: ServerResponse, next: (error?: unknown) => void): void => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limitBytes) {
      tooLarge(req);
      return next();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (error?: unknown): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      next(error);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limitBytes) {
        chunks.length = 0;
        tooLarge(req);
        // Whatever still comes is drained by Node once the answer is sent.
        req.resume();
        return settle();
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => {
      if (!req.rawBodyTooLarge) req.rawBody = Buffer.concat(chunks, size);
      settle();
    });
    req.once('error', (error) => settle(error));
  };
}

/**
 * Marks the body as refused, and hides its framing from the parsers after this one (a body
 * parser would read the rest and fail with an answer of its own): the route answers 413.
 */
function tooLarge(req: RawBodyRequest): void {
  req.rawBodyTooLarge = true;
  delete req.headers['content-length'];
  delete req.headers['transfer-encoding'];
  delete req.headers['content-type'];
}
