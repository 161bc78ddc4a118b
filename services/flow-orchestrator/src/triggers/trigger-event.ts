import type { IncomingMessage } from 'node:http';
import { jsonDepth, MAX_JSON_DEPTH } from '@flowmesh/bootstrap';
import { loneSurrogateError, MeshError, type TriggerEvent } from '@flowmesh/contracts';

/**
 * What a trigger reached over HTTP (a webhook, an HTTP route) makes of the request, as Windmill's
 * `args.rs` and `http_trigger_args.rs` do: the body by its content type, the query, the headers,
 * and from them either the event a preprocessor receives (`{ kind, body, raw_string, query,
 * headers, ... }`, Windmill's v2 format) or the arguments of a runnable without one.
 *
 * Credentials never reach user code: `authorization`, `cookie` and `proxy-authorization` are
 * left out of the headers, and the `token` query parameter out of the query.
 */

/** An HTTP request as Express hands it to a handler (the body already parsed when it was JSON or a form). */
export type TriggerHttpRequest = IncomingMessage & {
  /** What the body parser made of the body; undefined when no parser read it. */
  body?: unknown;
  /** The body's bytes as received, when a reader kept them (`http-routes/raw-body.middleware.ts`). */
  rawBody?: Buffer;
  /** That reader found the body over its limit. */
  rawBodyTooLarge?: boolean;
  /** Express's URL before any mount point was cut from it. */
  originalUrl?: string;
};

/** The body of a trigger request, as Windmill reads it. */
export interface TriggerBody {
  /**
   * A JSON body as it is (an object or any other value), a form's fields, and `{}` for an empty
   * body or a text or XML body (whose text is in `rawString`).
   */
  readonly body: unknown;
  /** The body as text: for text and XML bodies always, for the others when asked (`raw`). */
  readonly rawString: string | null;
}

/** Headers that carry credentials: never handed to a runnable. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** Query parameters that carry credentials (Windmill's webhooks take `?token=`). */
const CREDENTIAL_QUERY = new Set(['token']);

/**
 * The request's body, read by its content type as Windmill reads a webhook's: none or JSON
 * (JSON; an empty body without a content type is `{}`), text and XML (`{}`, the text in
 * `rawString`), a URL-encoded form (its fields). Anything else is UNSUPPORTED (HTTP 415 at the
 * edge), as multipart is without an object store. A body Express did not read is read here, up
 * to `limitBytes` (LIMIT_EXCEEDED past it).
 */
export async function readTriggerBody(
  req: TriggerHttpRequest,
  options: { readonly raw: boolean; readonly limitBytes: number },
): Promise<TriggerBody> {
  if (req.rawBodyTooLarge) throw tooLarge(options.limitBytes);
  const type = contentTypeOf(req);
  if (type === 'application/cloudevents+json') return cloudEvent(req, options);
  if (type === 'application/cloudevents-batch+json') {
    throw new MeshError('VALIDATION_FAILED', 'CloudEvents batches are not supported: send one event', {
      issues: [{ path: 'body', message: 'a CloudEvents batch' }],
    });
  }
  if (type === undefined || type === 'application/json' || type.endsWith('+json')) {
    const parsed = await jsonBodyOf(req, options.limitBytes);
    if (parsed.text.length === 0 && type === undefined) {
      return { body: {}, rawString: options.raw ? '' : null };
    }
    return { body: parsed.value, rawString: options.raw ? parsed.text : null };
  }
  if (type === 'text/plain' || type === 'application/xml' || type === 'text/xml') {
    return { body: {}, rawString: (await bytesOf(req, options.limitBytes)).toString('utf8') };
  }
  if (type === 'application/x-www-form-urlencoded') {
    const bytes =
      req.rawBody ?? (req.body === undefined ? await bytesOf(req, options.limitBytes) : undefined);
    const text = bytes?.toString('utf8');
    const body = text !== undefined ? Object.fromEntries(new URLSearchParams(text)) : (req.body ?? {});
    return {
      body,
      rawString: options.raw
        ? (text ?? new URLSearchParams(body as Record<string, string>).toString())
        : null,
    };
  }
  throw new MeshError(
    'UNSUPPORTED',
    `content type "${type}" is not supported: send JSON, text, XML or a URL-encoded form`,
    { content_type: type },
  );
}

/**
 * A CloudEvent (structured mode), as Windmill reads one: its `data` is the body (an object's
 * fields, anything else as `body`) and its other attributes go beside it as `WEBHOOK__METADATA__`.
 */
async function cloudEvent(
  req: TriggerHttpRequest,
  options: { readonly raw: boolean; readonly limitBytes: number },
): Promise<TriggerBody> {
  const { value, text } = await jsonBodyOf(req, options.limitBytes);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new MeshError('VALIDATION_FAILED', 'a CloudEvent must be a JSON object', {
      issues: [{ path: 'body', message: 'not a JSON object' }],
    });
  }
  const { data = null, ...metadata } = value as Record<string, unknown>;
  const body =
    data !== null && typeof data === 'object' && !Array.isArray(data)
      ? { ...(data as Record<string, unknown>), WEBHOOK__METADATA__: metadata }
      : { body: data, WEBHOOK__METADATA__: metadata };
  return { body, rawString: options.raw ? text : null };
}

/**
 * The request's headers for user code: lowercase names, several values joined with `, `,
 * credentials left out.
 */
export function triggerHeaders(req: Pick<IncomingMessage, 'headers'>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    const key = name.toLowerCase();
    if (value === undefined || CREDENTIAL_HEADERS.has(key)) continue;
    headers[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/**
 * The query parameters of the request's URL, each once (the last of a repeated one wins, as
 * Windmill's decoding has it), without `skip` (the run API's own options) and credentials.
 */
export function triggerQuery(
  req: TriggerHttpRequest,
  skip: ReadonlySet<string> = new Set(),
): Record<string, string> {
  const url = req.originalUrl ?? req.url ?? '';
  const at = url.indexOf('?');
  const query: Record<string, string> = {};
  if (at < 0) return query;
  for (const [name, value] of new URLSearchParams(url.slice(at + 1))) {
    if (!skip.has(name) && !CREDENTIAL_QUERY.has(name)) query[name] = value;
  }
  return query;
}

/** Windmill's webhook event: what the preprocessor of a runnable run by path receives. */
export function webhookEvent(parts: {
  readonly body: TriggerBody;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string>>;
}): TriggerEvent {
  return {
    kind: 'webhook',
    body: parts.body.body,
    raw_string: parts.body.rawString,
    query: { ...parts.query },
    headers: { ...parts.headers },
  };
}

/** Windmill's HTTP route event: the webhook's, plus the route, the path called, its params and the method. */
export function httpRouteEvent(parts: {
  /** The route as configured (`users/:id`). */
  readonly route: string;
  /** The path that was called (`users/42`). */
  readonly path: string;
  readonly method: string;
  readonly params: Readonly<Record<string, string>>;
  readonly body: TriggerBody;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string>>;
}): TriggerEvent {
  return {
    kind: 'http',
    route: parts.route,
    path: parts.path,
    method: parts.method.toLowerCase(),
    params: { ...parts.params },
    body: parts.body.body,
    raw_string: parts.body.rawString,
    query: { ...parts.query },
    headers: { ...parts.headers },
  };
}

/**
 * The arguments of a runnable without a preprocessor (or run with `skip_preprocessor`), as
 * Windmill's webhook makes them: an object body is the arguments (`{ body }` with `wrapBody`),
 * any other value `{ body: value }`; `extra` (headers and query parameters asked for with
 * `include_header` / `include_query`, `raw_string` with `raw`) are added beside them.
 */
export function mainArgsOf(
  body: TriggerBody,
  options: { readonly wrapBody?: boolean; readonly extra?: Readonly<Record<string, unknown>> } = {},
): Record<string, unknown> {
  const value = body.body;
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  const args: Record<string, unknown> =
    isObject && !options.wrapBody ? { ...(value as Record<string, unknown>) } : { body: value };
  for (const [name, extra] of Object.entries(options.extra ?? {})) args[name] = extra;
  if (body.rawString !== null) args.raw_string = body.rawString;
  return args;
}

/**
 * Headers named in `include_header` (comma-separated), under Windmill's names for them:
 * lowercase, `-` as `_` (`X-Github-Event` is `x_github_event`). Credentials are never included.
 */
export function includedHeaders(
  headers: Readonly<Record<string, string>>,
  names: string | undefined,
): Record<string, string> {
  const included: Record<string, string> = {};
  for (const name of listOf(names)) {
    const key = name.toLowerCase();
    const value = headers[key];
    if (value !== undefined) included[key.replaceAll('-', '_')] = value;
  }
  return included;
}

/** Query parameters named in `include_query` (comma-separated), under their own names. */
export function includedQuery(
  query: Readonly<Record<string, string>>,
  names: string | undefined,
): Record<string, string> {
  const included: Record<string, string> = {};
  for (const name of listOf(names)) {
    const value = query[name];
    if (value !== undefined) included[name] = value;
  }
  return included;
}

function listOf(names: string | undefined): string[] {
  return (names ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
}

function contentTypeOf(req: Pick<IncomingMessage, 'headers'>): string | undefined {
  const header = req.headers['content-type'];
  if (header === undefined || header === '') return undefined;
  return header.split(';')[0].trim().toLowerCase();
}

async function jsonBodyOf(
  req: TriggerHttpRequest,
  limitBytes: number,
): Promise<{ value: unknown; text: string }> {
  if (req.body !== undefined && contentTypeOf(req) !== undefined) {
    // Parsed by the app's JSON parser; its bytes when the app keeps them.
    return { value: req.body, text: req.rawBody?.toString('utf8') ?? JSON.stringify(req.body) };
  }
  const text = (req.rawBody ?? (await bytesOf(req, limitBytes))).toString('utf8');
  if (text.trim().length === 0) return { value: {}, text };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new MeshError('VALIDATION_FAILED', `the body is not JSON: ${(error as Error).message}`, {
      issues: [{ path: 'body', message: 'invalid JSON' }],
    });
  }
  // The app's JSON parser did not see these bytes: its depth limit holds here too.
  if (jsonDepth(value) > MAX_JSON_DEPTH) {
    throw new MeshError('VALIDATION_FAILED', `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`, {
      issues: [{ path: 'body', message: `nests deeper than ${MAX_JSON_DEPTH} levels` }],
    });
  }
  // Nor its check for text PostgreSQL cannot store.
  const surrogate = loneSurrogateError('body', value, ['body']);
  if (surrogate) throw surrogate;
  return { value, text };
}

/**
 * The bytes of a body no parser read, at most `limitBytes`: past it the rest is drained unread
 * (so the client still gets its answer) and the body is LIMIT_EXCEEDED.
 */
function bytesOf(req: TriggerHttpRequest, limitBytes: number): Promise<Buffer> {
  if (req.rawBody) return Promise.resolve(req.rawBody);
  if (req.readableEnded || !req.readable) return Promise.resolve(Buffer.alloc(0));
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    req.resume();
    return Promise.reject(tooLarge(limitBytes));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limitBytes) return void chunks.push(chunk);
      req.off('data', onData);
      req.resume();
      reject(tooLarge(limitBytes));
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

function tooLarge(limitBytes: number): MeshError {
  return new MeshError('LIMIT_EXCEEDED', `the body is larger than ${limitBytes} bytes`, {
    limit_bytes: limitBytes,
  });
}
