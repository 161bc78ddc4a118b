/** What an HTTP route answers for a run's result: Windmill's `result_to_response`. */
export interface RouteAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

const COMPOSITE_KEYS = ['windmill_status_code', 'windmill_content_type', 'windmill_headers'] as const;
/** Headers a result may not set: they describe the connection or the body's framing, which are ours. */
const RESERVED_HEADERS = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
]);

/**
 * A result answers 200 as JSON (a failed run: 500 and its `{ error }`), unless it is Windmill's
 * composite result: an object with `windmill_status_code`, `windmill_content_type` and/or
 * `windmill_headers`, whose `result` (else the object's other keys) is the body, sent as is when
 * it is a string and the content type is not JSON.
 */
export function routeAnswerOf(success: boolean, result: unknown): RouteAnswer {
  const fallbackStatus = success ? 200 : 500;
  if (!isObject(result) || !COMPOSITE_KEYS.some((key) => key in result)) {
    return {
      status: fallbackStatus,
      contentType: 'application/json',
      body: JSON.stringify(result ?? null),
      headers: {},
    };
  }
  const code = result.windmill_status_code;
  const status =
    typeof code === 'number' && Number.isInteger(code) && code >= 200 && code <= 599 ? code : fallbackStatus;
  const contentType =
    typeof result.windmill_content_type === 'string' && result.windmill_content_type.length > 0
      ? result.windmill_content_type
      : 'application/json';
  const headers: Record<string, string> = {};
  if (isObject(result.windmill_headers)) {
    for (const [name, value] of Object.entries(result.windmill_headers)) {
      if (
        typeof value === 'string' &&
        /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) &&
        !RESERVED_HEADERS.has(name.toLowerCase())
      )
        headers[name.toLowerCase()] = value.replace(/[\r\n]/g, ' ');
    }
  }
  const payload =
    'result' in result
      ? result.result
      : Object.fromEntries(
          Object.entries(result).filter(([key]) => !(COMPOSITE_KEYS as readonly string[]).includes(key)),
        );
  const json = /[/+]json\b/i.test(contentType);
  const body = typeof payload === 'string' && !json ? payload : JSON.stringify(payload ?? null);
  return { status, contentType, body, headers };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
