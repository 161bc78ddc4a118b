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
import type { OpenAIErrorBody } from './openai-wire.types.js';

interface OpenAIErrorFields {
  message?: string;
  code?: string;
  type?: string;
}

/** The error's own fields, from OpenAI's `{error:{...}}`, Mistral/vLLM's flat shape, or FastAPI's `detail`. */
export function openAIErrorFields(json: unknown): OpenAIErrorFields | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const body = json as OpenAIErrorBody;
  const inner = body.error;
  if (typeof inner === 'string') return { message: inner };
  const source = inner ?? body;
  const message =
    typeof source.message === 'string'
      ? source.message
      : typeof body.detail === 'string'
        ? body.detail
        : undefined;
  const code = source.code === null || source.code === undefined ? undefined : String(source.code);
  const type = typeof source.type === 'string' ? source.type : undefined;
  if (message === undefined && code === undefined && type === undefined) return undefined;
  return {
    ...(message !== undefined ? { message } : {}),
    ...(code ? { code } : {}),
    ...(type ? { type } : {}),
  };
}

/**
 * Classifies a failed OpenAI-compatible call. Codes first (`context_length_exceeded`,
 * `insufficient_quota`, `model_not_found`, Azure's `content_filter`), then the shared message
 * lists, read only from a JSON error body. Whatever 4xx is left is a request we built wrong.
 */
export function classifyOpenAIError(
  vendor: string,
  status: number,
  body: string,
  headers: ResponseHeaders,
): ProviderError {
  const fields = openAIErrorFields(parseJsonBody(body));
  const message = safeProviderMessage(fields?.message);
  const code = fields?.code ?? fields?.type;
  const extra = code ? { providerCode: code } : {};
  const retryAfter = retryAfterMs(headers);
  const withRetry = retryAfter !== undefined ? { ...extra, retryAfterMs: retryAfter } : extra;
  const text = fields?.message;

  if (status === 401 || status === 403) return classified('auth_failed', vendor, status, message, extra);
  if (code === 'insufficient_quota' || status === 402)
    return classified('quota_exceeded', vendor, status, message, extra);
  if (status === 429) return classified('rate_limited', vendor, status, message, withRetry);
  if (
    code === 'context_length_exceeded' ||
    status === 413 ||
    (status < 500 && matchesAny(text, CONTEXT_EXCEEDED_PATTERNS))
  ) {
    return classified('context_window_exceeded', vendor, status, message, extra);
  }
  if (status >= 500 || status === 408)
    return classified('provider_outage', vendor, status, message, withRetry);
  if (code === 'content_filter' || code === 'content_policy_violation') {
    return classified('bad_request_user', vendor, status, message, extra);
  }
  if (
    code === 'model_not_found' ||
    code === 'DeploymentNotFound' ||
    matchesAny(text, MODEL_UNAVAILABLE_PATTERNS)
  ) {
    return classified('model_unavailable', vendor, status, message, extra);
  }
  return classified('bad_request_internal', vendor, status, message, extra);
}

/** A `data: {"error":...}` frame inside a stream that had started. */
export function classifyOpenAIStreamError(vendor: string, payload: unknown): ProviderError {
  const fields = openAIErrorFields(payload);
  const text = fields?.message;
  const message = `${vendor} failed mid-stream${text ? `: ${safeProviderMessage(text)}` : ''}`;
  const code = fields?.code ?? fields?.type;
  const extra = code ? { providerCode: code } : {};
  if (code === 'context_length_exceeded' || matchesAny(text, CONTEXT_EXCEEDED_PATTERNS)) {
    return { class: 'context_window_exceeded', message, ...extra };
  }
  if (code === 'rate_limit_exceeded') return { class: 'rate_limited', message, ...extra };
  return { class: 'provider_outage', message, ...extra };
}
