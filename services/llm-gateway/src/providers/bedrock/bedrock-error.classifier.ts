import type { ProviderError, ProviderErrorClass } from '@flowmesh/contracts';
import type { ResponseHeaders } from '../provider-adapter.js';
import { ProviderCallError } from '../provider-call.error.js';
import {
  CONTEXT_EXCEEDED_PATTERNS,
  classified,
  matchesAny,
  parseJsonBody,
  retryAfterMs,
  safeProviderMessage,
} from '../shared/provider-error.util.js';

const VENDOR = 'AWS Bedrock';

/** "Input is too long for requested model.", and Claude's own words passed through Converse. */
const BEDROCK_CONTEXT = [
  /(input|prompt) is too long/i,
  /too long for (the )?(requested )?model/i,
  /exceed context limit/i,
  /context window/i,
  ...CONTEXT_EXCEEDED_PATTERNS,
];
const MODEL_PROBLEMS = [
  /model identifier is invalid/i,
  /on-demand throughput isn.t supported/i,
  /don.t have access to the model/i,
  /model .*(is not supported|not found|is not ready|has reached the end of its life)/i,
  /end of its life/i,
];

const BY_TYPE: Record<string, ProviderErrorClass> = {
  ThrottlingException: 'rate_limited',
  ServiceQuotaExceededException: 'quota_exceeded',
  AccessDeniedException: 'auth_failed',
  UnrecognizedClientException: 'auth_failed',
  InvalidSignatureException: 'auth_failed',
  IncompleteSignatureException: 'auth_failed',
  MissingAuthenticationTokenException: 'auth_failed',
  ExpiredTokenException: 'auth_failed',
  InvalidClientTokenId: 'auth_failed',
  ResourceNotFoundException: 'model_unavailable',
  ModelNotReadyException: 'model_unavailable',
  InternalServerException: 'provider_outage',
  ServiceUnavailableException: 'provider_outage',
  ModelTimeoutException: 'provider_outage',
  ModelErrorException: 'provider_outage',
  ModelStreamErrorException: 'provider_outage',
};

/** A Bedrock failure as the SDK or the wire shows it: the exception's name, HTTP status, message, headers. */
export interface BedrockFailure {
  readonly type: string | undefined;
  readonly status: number | undefined;
  readonly message: string | undefined;
  readonly headers?: ResponseHeaders;
}

/**
 * Classifies by the exception type (`x-amzn-errortype`, or the SDK exception's name) first. A
 * `ValidationException` is a context overflow when its message says so, a model problem when it
 * names the model, and otherwise a request we built wrong. `AccessDeniedException` about the
 * model (access not granted) is the model being unavailable, not bad credentials.
 */
export function classifyBedrockFailure(failure: BedrockFailure): ProviderError {
  const status = failure.status ?? 0;
  const text = failure.message;
  const message = safeProviderMessage(text);
  const type = failure.type;
  const extra = type ? { providerCode: type } : {};
  const retryAfter = failure.headers ? retryAfterMs(failure.headers) : undefined;
  const withRetry = retryAfter !== undefined ? { ...extra, retryAfterMs: retryAfter } : extra;
  const result = (
    errorClass: ProviderErrorClass,
    extraFields: Omit<ProviderError, 'class' | 'message' | 'status'> = extra,
  ) =>
    status > 0
      ? classified(errorClass, VENDOR, status, message, extraFields)
      : { class: errorClass, message: `${VENDOR} failed${message ? `: ${message}` : ''}`, ...extraFields };

  if (type === 'ValidationException' || (type === undefined && status === 400)) {
    if (matchesAny(text, BEDROCK_CONTEXT)) return result('context_window_exceeded');
    if (matchesAny(text, MODEL_PROBLEMS)) return result('model_unavailable');
    return result('bad_request_internal');
  }
  if (type === 'AccessDeniedException' && matchesAny(text, MODEL_PROBLEMS))
    return result('model_unavailable');
  const byType = type ? BY_TYPE[type] : undefined;
  if (byType)
    return result(byType, byType === 'rate_limited' || byType === 'provider_outage' ? withRetry : extra);
  if (status === 401 || status === 403) return result('auth_failed');
  if (status === 429) return result('rate_limited', withRetry);
  if (status === 404) return result('model_unavailable');
  if (status >= 500 || status === 408 || status === 424) return result('provider_outage', withRetry);
  return result('bad_request_internal');
}

/** The wire view: `x-amzn-errortype: ValidationException:http://…` and `{"message": …}`. */
export function classifyBedrockError(status: number, body: string, headers: ResponseHeaders): ProviderError {
  const json = parseJsonBody(body) as { message?: unknown; Message?: unknown; __type?: unknown } | undefined;
  const rawType = headers['x-amzn-errortype'] ?? (typeof json?.__type === 'string' ? json.__type : undefined);
  const type = rawType?.split(':')[0]?.split('#').at(-1);
  const text =
    typeof json?.message === 'string'
      ? json.message
      : typeof json?.Message === 'string'
        ? json.Message
        : undefined;
  return classifyBedrockFailure({ type, status, message: text, headers });
}

/** An exception the SDK threw (before the stream, or from an exception frame inside it). */
export function classifyBedrockException(error: unknown): ProviderError {
  const shaped = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    message?: unknown;
    $metadata?: { httpStatusCode?: unknown };
    $response?: { headers?: Record<string, string | undefined> };
  };
  const headers = Object.fromEntries(
    Object.entries(shaped.$response?.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const status = shaped.$metadata?.httpStatusCode;
  return classifyBedrockFailure({
    type: typeof shaped.name === 'string' && shaped.name !== 'Error' ? shaped.name : undefined,
    status: typeof status === 'number' ? status : undefined,
    message: typeof shaped.message === 'string' ? shaped.message : undefined,
    headers,
  });
}

/**
 * An SDK call's failure before any answer: a service exception classified, except after an abort
 * (the executor reports it as cancelled) or a network failure (left to the executor, which names
 * only the host). Only a service exception carries `$fault`.
 */
export function classifiedBedrockFailure(error: unknown, signal: { readonly aborted: boolean }): unknown {
  if (signal.aborted) return error;
  if (typeof error !== 'object' || error === null || !('$fault' in error)) return error;
  return new ProviderCallError({ ...classifyBedrockException(error), provider: 'aws_bedrock' });
}
