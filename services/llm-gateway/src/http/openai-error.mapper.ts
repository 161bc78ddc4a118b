import {
  classifyFault,
  FaultClassSchema,
  MeshError,
  type ErrorCode,
  type FaultClass,
  type ProviderError,
  type ProviderErrorClass,
} from '@flowmesh/contracts';
import { findOutboundRefusal } from '@flowmesh/outbound';

/**
 * OpenAI's error JSON: what the official SDKs turn into typed errors by status. `fault` is the
 * gateway's own field beside OpenAI's (the SDKs keep unknown fields): whose fault the failure is,
 * `user` or `internal`, as `fault` on a chat's `error` event over NATS.
 */
export interface OpenAIErrorBody {
  readonly error: {
    readonly message: string;
    readonly type: string;
    readonly param: string | null;
    readonly code: string | null;
    readonly fault: FaultClass;
  };
}

export interface HttpError {
  readonly status: number;
  readonly body: OpenAIErrorBody;
  /** Seconds, for 429s that know when to come back. */
  readonly retryAfterSeconds?: number;
  /** What the audit row records. */
  readonly errorClass: string;
  /** Whose fault (`classifyFault`): the `fault` label of the failure counter, and the span's. */
  readonly fault: FaultClass;
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
  // 402, not 429: a spent budget does not pass with a retry, and SDKs retry a 429 on their own.
  budget_exceeded: [402, 'budget_exceeded', 'budget_exceeded'],
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
  return {
    error: {
      message: error.message,
      type,
      param: null,
      code: error.providerCode ?? code,
      fault: providerFault(error),
    },
  };
}

/**
 * A provider error's fault: the gateway's verdict when it attributed the error to a key
 * (`KeyOwnership`), else `classifyFault` not knowing whose key (counted as the platform's).
 */
function providerFault(error: ProviderError): FaultClass {
  return (
    error.fault ??
    classifyFault({
      source: 'provider',
      class: error.class,
      key: undefined,
      ...(error.providerCode !== undefined ? { providerCode: error.providerCode } : {}),
      message: error.message,
    })
  );
}

/**
 * A mesh error's fault: what it says of itself (`details.fault`: a provider resource that could
 * not be read); a request the edge refused naming the caller's field (`details.param`) is the
 * caller's; otherwise by its code and the entity it names.
 */
function meshFault(error: MeshError): FaultClass {
  const details = (error.details ?? {}) as { fault?: unknown; param?: unknown; entity?: unknown };
  const said = FaultClassSchema.safeParse(details.fault);
  if (said.success) return said.data;
  if (error.code === 'VALIDATION_FAILED' && typeof details.param === 'string')
    return classifyFault({ source: 'request' });
  return classifyFault({
    source: 'mesh',
    code: error.code,
    ...(typeof details.entity === 'string' ? { entity: details.entity } : {}),
  });
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
 * is a 400 about the resource's URL; anything unexpected is a 500 that says nothing more. Each
 * says whose fault it is (`fault`, `classifyFault`'s rules): attribute a provider's refusal to
 * the key it used first (`KeyOwnership.attributeCaught`), or it counts as the platform's.
 */
export function toHttpError(error: unknown): HttpError {
  const refusal = findOutboundRefusal(error);
  if (refusal) {
    // The provider resource's URL, as its owner wrote it: a request the user can fix, as over NATS.
    const fault = classifyFault({ source: 'provider', class: 'bad_request_user', key: undefined });
    return {
      status: 400,
      body: {
        error: {
          message: refusal.message,
          type: 'invalid_request_error',
          param: null,
          code: 'outbound_refused',
          fault,
        },
      },
      errorClass: 'outbound_refused',
      fault,
    };
  }
  if (error instanceof MeshError) {
    if (isProviderError(error.details)) {
      const details = error.details;
      const [status] = CLASS_STATUS[details.class];
      const body = openAIErrorBody(details);
      return {
        status,
        body,
        errorClass: details.class,
        fault: body.error.fault,
        ...(details.retryAfterMs !== undefined
          ? { retryAfterSeconds: Math.max(1, Math.ceil(details.retryAfterMs / 1000)) }
          : {}),
      };
    }
    const [status, type, code] = CODE_STATUS[error.code];
    const param = (error.details as { param?: unknown } | undefined)?.param;
    const fault = meshFault(error);
    return {
      status,
      body: {
        error: { message: error.message, type, param: typeof param === 'string' ? param : null, code, fault },
      },
      errorClass: error.code.toLowerCase(),
      fault,
    };
  }
  // Our own bug.
  const fault = classifyFault({ source: 'step', kind: 'bug' });
  return {
    status: 500,
    body: {
      error: {
        message: 'the gateway failed to handle the request',
        type: 'server_error',
        param: null,
        code: 'internal_error',
        fault,
      },
    },
    errorClass: 'internal',
    fault,
  };
}
