import type { ProviderError } from '@flowmesh/contracts';
import type { ResponseHeaders } from '../provider-adapter.js';
import {
  classified,
  CONTEXT_EXCEEDED_PATTERNS,
  matchesAny,
  MODEL_UNAVAILABLE_PATTERNS,
  parseJsonBody,
  retryAfterMs,
  safeProviderMessage,
} from '../shared/provider-error.util.js';
import { googleErrorFields } from '../googleai/google-error.fields.js';
import type { AnthropicErrorBody } from './anthropic-wire.types.js';

const VENDOR = 'Anthropic';

/** Claude's context errors: "prompt is too long: N tokens > M maximum", "input length and `max_tokens` exceed context limit". */
const ANTHROPIC_CONTEXT = [/prompt is too long/i, /exceed context limit/i, ...CONTEXT_EXCEEDED_PATTERNS];

/** `{type:"error",error:{type,message}}` directly, or Google's envelope when Vertex itself refused. */
function errorFields(body: string): { type?: string; message?: string } | undefined {
  const json = parseJsonBody(body);
  const anthropic = (json ?? {}) as AnthropicErrorBody;
  if (anthropic.error && typeof anthropic.error === 'object' && typeof anthropic.error.type === 'string') {
    return {
      type: anthropic.error.type,
      ...(anthropic.error.message ? { message: anthropic.error.message } : {}),
    };
  }
  const google = googleErrorFields(json);
  if (google)
    return {
      ...(google.status ? { type: google.status } : {}),
      ...(google.message ? { message: google.message } : {}),
    };
  return undefined;
}

/**
 * Classifies a failed Messages call by Claude's error type first (`authentication_error`,
 * `rate_limit_error`, `overloaded_error`, ...), then by status; a context overflow is an
 * `invalid_request_error` whose message says so. A 400 left over is a request we built wrong.
 */
export function classifyAnthropicError(
  status: number,
  body: string,
  headers: ResponseHeaders,
): ProviderError {
  const fields = errorFields(body);
  const type = fields?.type;
  const text = fields?.message;
  const message = safeProviderMessage(text);
  const extra = type ? { providerCode: type } : {};
  const retryAfter = retryAfterMs(headers);
  const withRetry = retryAfter !== undefined ? { ...extra, retryAfterMs: retryAfter } : extra;

  if (status === 401 || status === 403 || type === 'authentication_error' || type === 'permission_error') {
    return classified('auth_failed', VENDOR, status, message, extra);
  }
  if (status === 429 || type === 'rate_limit_error' || type === 'RESOURCE_EXHAUSTED') {
    return classified('rate_limited', VENDOR, status, message, withRetry);
  }
  if (
    status === 413 ||
    type === 'request_too_large' ||
    (status < 500 && matchesAny(text, ANTHROPIC_CONTEXT))
  ) {
    return classified('context_window_exceeded', VENDOR, status, message, extra);
  }
  if (status >= 500 || status === 408 || type === 'overloaded_error' || type === 'api_error') {
    return classified('provider_outage', VENDOR, status, message, withRetry);
  }
  if (/credit balance is too low/i.test(text ?? '') || status === 402) {
    return classified('quota_exceeded', VENDOR, status, message, extra);
  }
  if (status === 404 || type === 'not_found_error' || matchesAny(text, MODEL_UNAVAILABLE_PATTERNS)) {
    return classified('model_unavailable', VENDOR, status, message, extra);
  }
  return classified('bad_request_internal', VENDOR, status, message, extra);
}

/** An `event: error` inside a stream that had started (status already 200). */
export function classifyAnthropicStreamError(
  error: { type?: string; message?: string } | undefined,
): ProviderError {
  const type = error?.type;
  const text = error?.message;
  const message = `${VENDOR} failed mid-stream${text ? `: ${safeProviderMessage(text)}` : ''}`;
  const extra = type ? { providerCode: type } : {};
  if (matchesAny(text, ANTHROPIC_CONTEXT)) return { class: 'context_window_exceeded', message, ...extra };
  if (type === 'rate_limit_error') return { class: 'rate_limited', message, ...extra };
  if (type === 'invalid_request_error') return { class: 'bad_request_internal', message, ...extra };
  return { class: 'provider_outage', message, ...extra };
}
