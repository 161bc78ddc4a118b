import type { IncomingMessage } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createZstdDecompress } from 'node:zlib';
import { jsonDepth, MAX_JSON_DEPTH } from '@flowmesh/bootstrap';
import { loneSurrogateError, MeshError } from '@flowmesh/contracts';

/** The `Content-Encoding`s a body may arrive in: those Express's JSON parser decodes. */
const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
  zstd: createZstdDecompress,
};

/**
 * A request's body as bytes, decoded when it came compressed. `limit` bounds the decoded size (a
 * small compressed body cannot unfold into a large one); a declared `Content-Length` over it is
 * refused before anything is read.
 */
export function readRequestBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const encoding = req.headers['content-encoding']?.toLowerCase();
  if (encoding === undefined || encoding === 'identity') {
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    if (declared > limit) return Promise.reject(tooLarge(limit));
    return collect(req, req, limit);
  }
  const decoder = Object.hasOwn(DECODERS, encoding) ? DECODERS[encoding] : undefined;
  if (!decoder)
    return Promise.reject(
      new MeshError('UNSUPPORTED', `unsupported content encoding "${encoding}"`, {
        param: 'content-encoding',
      }),
    );
  const decoded = decoder();
  req.pipe(decoded);
  return collect(req, decoded, limit).catch((error: unknown) => {
    req.unpipe(decoded);
    decoded.destroy();
    req.resume();
    throw error instanceof MeshError
      ? error
      : new MeshError('VALIDATION_FAILED', `the body is not valid ${encoding}`, { param: 'body' });
  });
}

/**
 * A JSON body as a value (`undefined` when empty), refused when it is not JSON or nests deeper than
 * every service takes (`MAX_JSON_DEPTH`), before anything walks it recursively.
 */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new MeshError('VALIDATION_FAILED', 'the body is not valid JSON', { param: 'body' });
  }
  if (jsonDepth(body) > MAX_JSON_DEPTH)
    throw new MeshError('VALIDATION_FAILED', `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`, {
      param: 'body',
    });
  const surrogate = loneSurrogateError('body', body, ['body']);
  if (surrogate) throw surrogate;
  return body;
}

/** `stream`'s bytes (`req` itself, or its decoder); past `limit`, what `req` still sends is discarded. */
function collect(req: IncomingMessage, stream: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stream.removeAllListeners('data');
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    stream.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
    stream.once('error', reject);
    if (stream !== req) req.once('error', reject);
  });
}

function tooLarge(limit: number): MeshError {
  return new MeshError('LIMIT_EXCEEDED', `the request body is larger than ${limit} bytes`, { param: 'body' });
}
