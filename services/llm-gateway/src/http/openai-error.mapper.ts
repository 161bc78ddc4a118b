import { MeshError, type ErrorCode, type ProviderError, type ProviderErrorClass } from '@flowmesh/contracts';
import { findOutboundRefusal } from '@flowmesh/outbound';

/** OpenAI's error JSON: what the official SDKs turn into typed errors by status. */
export interface OpenAIErrorBody {
  readonly error: {
    readonly message: string;
    readonly type: string;
    readonly param: string | null;
    readonly code: string | null;
  };
}

export interface HttpError {
  readonly status: number;
  readonly body: OpenAIErrorBody;
  /** Seconds, for 429s that know when to come back. */
  readonly retryAfterSeconds?: number;
  /** What the audit row records. */
  readonly errorClass: string;
}

const CLASS_STATUS: Record<ProviderErrorClass, [number, string, string]> = {
  context_window_exceeded: [400, 'invalid_request_error', 'context_length_exceeded'],
  rate_limited: [429, 'rate_limit_error', 'rate_limit_exceeded'],
  quota_exceeded: [429, 'insufficient_quota', 'insufficient_quota'],
  // The provider refused the resource's credentials, not the caller's token: still a 401 the
  // caller can act on (fix the resource), with a code that says whose credentials failed.
  auth_failed: [401, 'authentication_error', 'provider_auth_failed'],
  model_unavailable: [404, 'invalid_request_error', 'model_not_found'],
  // A request the gateway built wrong is the gateway's fault, never the caller's.
  bad_request_internal: [500, 'server_error', 'gateway_request_error'],
  bad_request_user: [400, 'invalid_request_error', 'invalid_request'],
  provider_outage: [502, 'server_error', 'provider_unavailable'],
  cancelled: [499, 'request_cancelled', 'cancelled'],
};

const CODE_STATUS: Record<ErrorCode, [number, string, string]> = {
  VALIDATION_FAILED: [400, 'invalid_request_error', 'invalid_request'],
  NOT_FOUND: [404, 'invalid_request_error', 'not_found'],
  PERMISSION_DENIED: [403, 'permission_error', 'permission_denied'],
  UNAUTHENTICATED: [401, 'authentication_error', 'invalid_api_key'],
  CONFLICT: [409, 'invalid_request_error', 'conflict'],
  TIMEOUT: [504, 'server_error', 'timeout'],
  UNAVAILABLE: [503, 'server_error', 'service_unavailable'],
  LIMIT_EXCEEDED: [413, 'invalid_request_error', 'limit_exceeded'],
  UNSUPPORTED: [400, 'invalid_request_error', 'unsupported'],
  INTERNAL: [500, 'server_error', 'internal_error'],
};

export function openAIErrorBody(error: ProviderError): OpenAIErrorBody {
  const [, type, code] = CLASS_STATUS[error.class];
  return { error: { message: error.message, type, param: null, code: error.providerCode ?? code } };
}

function isProviderError(details: unknown): details is ProviderError {
  return (
    typeof details === 'object' &&
    details !== null &&
    'class' in details &&
    typeof details.class === 'string' &&
    (details as { class: string }).class in CLASS_STATUS
  );
}

/**
 * Any failure as the HTTP answer the OpenAI SDKs expect. Provider failures keep their class
 * (context window, rate limit with Retry-After, ...); mesh errors map by code; an SSRF refusal
 * is a 400 about the resource's URL; anything unexpected is a 500 that says nothing more.
 */
export function toHttpError(error: unknown): HttpError {
  const refusal = findOutboundRefusal(error);
  if (refusal) {
    return {
      status: 400,
      body: {
        error: {
          message: refusal.message,
          type: 'invalid_request_error',
          param: null,
          code: 'outbound_refused',
        },
      },
      errorClass: 'outbound_refused',
    };
  }
  if (error instanceof MeshError) {
    if (isProviderError(error.details)) {
      const details = error.details;
      const [status] = CLASS_STATUS[details.class];
      return {
        status,
        body: openAIErrorBody(details),
        errorClass: details.class,
        ...(details.retryAfterMs !== undefined
          ? { retryAfterSeconds: Math.max(1, Math.ceil(details.retryAfterMs / 1000)) }
          : {}),
      };
    }
    const [status, type, code] = CODE_STATUS[error.code];
    const param = (error.details as { param?: unknown } | undefined)?.param;
    return {
      status,
      body: {
        error: { message: error.message, type, param: typeof param === 'string' ? param : null, code },
      },
      errorClass: error.code.toLowerCase(),
    };
  }
  return {
    status: 500,
    body: {
      error: {
        message: 'the gateway failed to handle the request',
        type: 'server_error',
        param: null,
        code: 'internal_error',
      },
    },
    errorClass: 'internal',
  };
}
