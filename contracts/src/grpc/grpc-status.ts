import type { ErrorCode } from '../errors.js';

/** gRPC status codes (grpc/status.h), by name: the ones a mesh error becomes. */
export const GRPC_STATUS = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

/** The one place a mesh error code becomes a gRPC status (as `HTTP_STATUS_OF` for HTTP). */
export const GRPC_STATUS_OF: Record<ErrorCode, number> = {
  VALIDATION_FAILED: GRPC_STATUS.INVALID_ARGUMENT,
  UNAUTHENTICATED: GRPC_STATUS.UNAUTHENTICATED,
  PERMISSION_DENIED: GRPC_STATUS.PERMISSION_DENIED,
  NOT_FOUND: GRPC_STATUS.NOT_FOUND,
  CONFLICT: GRPC_STATUS.ALREADY_EXISTS,
  LIMIT_EXCEEDED: GRPC_STATUS.RESOURCE_EXHAUSTED,
  UNSUPPORTED: GRPC_STATUS.FAILED_PRECONDITION,
  INTERNAL: GRPC_STATUS.INTERNAL,
  UNAVAILABLE: GRPC_STATUS.UNAVAILABLE,
  TIMEOUT: GRPC_STATUS.DEADLINE_EXCEEDED,
};

/**
 * Trailing metadata of a failed call: the mesh error's code (its name, `NOT_FOUND`), and the
 * whole `{code, message, details?}` envelope as UTF-8 JSON. The status message is the error's.
 */
export const GRPC_ERROR_CODE_KEY = 'flowmesh-error-code';
export const GRPC_ERROR_ENVELOPE_KEY = 'flowmesh-error-bin';
