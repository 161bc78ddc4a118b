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
import { googleErrorFields } from './google-error.fields.js';

const VENDOR = 'Google AI';

/** "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576)." */
const GEMINI_CONTEXT = [/input token count .* exceeds the maximum/i, ...CONTEXT_EXCEEDED_PATTERNS];
const BAD_KEY_REASONS = new Set([
  'API_KEY_INVALID',
  'API_KEY_SERVICE_BLOCKED',
  'API_KEY_HTTP_REFERRER_BLOCKED',
]);

/**
 * Classifies a failed Gemini call by Google's `status` and `ErrorInfo.reason` first: a bad API key
 * is a 400 `INVALID_ARGUMENT` with reason `API_KEY_INVALID`, not a 401; quota waits come in a
 * `RetryInfo` detail. A 400 left over is a request we built wrong.
 */
export function classifyGeminiError(status: number, body: string, headers: ResponseHeaders): ProviderError {
  const fields = googleErrorFields(parseJsonBody(body));
  const text = fields?.message;
  const message = safeProviderMessage(text);
  const code = fields?.status;
  const extra = code ? { providerCode: code } : {};
  const retryAfter = retryAfterMs(headers) ?? fields?.retryDelayMs;
  const withRetry = retryAfter !== undefined ? { ...extra, retryAfterMs: retryAfter } : extra;

  if (
    status === 401 ||
    status === 403 ||
    code === 'UNAUTHENTICATED' ||
    code === 'PERMISSION_DENIED' ||
    fields?.reasons.some((reason) => BAD_KEY_REASONS.has(reason))
  ) {
    return classified('auth_failed', VENDOR, status, message, extra);
  }
  if (status === 429 || code === 'RESOURCE_EXHAUSTED')
    return classified('rate_limited', VENDOR, status, message, withRetry);
  if (status < 500 && matchesAny(text, GEMINI_CONTEXT))
    return classified('context_window_exceeded', VENDOR, status, message, extra);
  if (
    status >= 500 ||
    status === 408 ||
    code === 'UNAVAILABLE' ||
    code === 'INTERNAL' ||
    code === 'DEADLINE_EXCEEDED'
  ) {
    return classified('provider_outage', VENDOR, status, message, withRetry);
  }
  if (status === 404 || code === 'NOT_FOUND' || matchesAny(text, MODEL_UNAVAILABLE_PATTERNS)) {
    return classified('model_unavailable', VENDOR, status, message, extra);
  }
  // Billing not enabled, or a region Gemini does not serve: the account's setup, not our request.
  if (code === 'FAILED_PRECONDITION') return classified('bad_request_user', VENDOR, status, message, extra);
  return classified('bad_request_internal', VENDOR, status, message, extra);
}

/** A `data: {"error":...}` chunk inside a stream that had started. */
export function classifyGeminiStreamError(payload: unknown): ProviderError {
  const fields = googleErrorFields(payload);
  const text = fields?.message;
  const message = `${VENDOR} failed mid-stream${text ? `: ${safeProviderMessage(text)}` : ''}`;
  const extra = fields?.status ? { providerCode: fields.status } : {};
  if (matchesAny(text, GEMINI_CONTEXT)) return { class: 'context_window_exceeded', message, ...extra };
  if (fields?.status === 'RESOURCE_EXHAUSTED') return { class: 'rate_limited', message, ...extra };
  return { class: 'provider_outage', message, ...extra };
}
