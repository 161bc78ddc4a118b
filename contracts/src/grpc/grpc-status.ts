import protobuf from 'protobufjs';
import type { ErrorCode, ErrorEnvelope } from '../errors.js';

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

/** The standard rich-error trailer (`google.rpc.Status`, binary), which gRPC libraries decode. */
export const GRPC_STATUS_DETAILS_KEY = 'grpc-status-details-bin';
/** `google.rpc.ErrorInfo.domain` of flowmesh's errors; the reason is the mesh error code. */
export const GRPC_ERROR_DOMAIN = 'flowmesh.dev';
const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';

/**
 * google/rpc/status.proto and error_details.proto's ErrorInfo, as much as is sent here (a map
 * field's descriptor carries `keyType`, which protobufjs's `IField` typing leaves out).
 */
const rpcTypes = protobuf.Root.fromJSON({
  nested: {
    google: {
      nested: {
        protobuf: {
          nested: {
            Any: { fields: { type_url: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } },
          },
        },
        rpc: {
          nested: {
            Status: {
              fields: {
                code: { type: 'int32', id: 1 },
                message: { type: 'string', id: 2 },
                details: { rule: 'repeated', type: 'google.protobuf.Any', id: 3 },
              },
            },
            ErrorInfo: {
              fields: {
                reason: { type: 'string', id: 1 },
                domain: { type: 'string', id: 2 },
                metadata: { keyType: 'string', type: 'string', id: 3 } as protobuf.IField,
              },
            },
          },
        },
      },
    },
  },
});
const StatusType = rpcTypes.lookupType('google.rpc.Status');
const ErrorInfoType = rpcTypes.lookupType('google.rpc.ErrorInfo');

/**
 * A mesh error as `google.rpc.Status`: its gRPC code, its message, and one `ErrorInfo` whose
 * reason is the mesh code (`NOT_FOUND`), domain `flowmesh.dev`, metadata the message.
 */
export function encodeGrpcStatusDetails(envelope: ErrorEnvelope): Buffer {
  const info = ErrorInfoType.encode(
    ErrorInfoType.fromObject({
      reason: envelope.code,
      domain: GRPC_ERROR_DOMAIN,
      metadata: { message: envelope.message },
    }),
  ).finish();
  const status = StatusType.fromObject({
    code: GRPC_STATUS_OF[envelope.code],
    message: envelope.message,
    details: [{ type_url: ERROR_INFO_TYPE, value: info }],
  });
  return Buffer.from(StatusType.encode(status).finish());
}

/** What a client reads back from `grpc-status-details-bin`. */
export interface DecodedGrpcStatus {
  readonly code: number;
  readonly message: string;
  readonly errorInfo?: { reason: string; domain: string; metadata: Record<string, string> };
}

export function decodeGrpcStatusDetails(bytes: Uint8Array): DecodedGrpcStatus {
  const status = StatusType.toObject(StatusType.decode(bytes), { defaults: true }) as {
    code: number;
    message: string;
    details: { type_url: string; value: Uint8Array }[];
  };
  const info = status.details.find((detail) => detail.type_url === ERROR_INFO_TYPE);
  return {
    code: status.code,
    message: status.message,
    ...(info
      ? {
          errorInfo: ErrorInfoType.toObject(ErrorInfoType.decode(info.value), {
            defaults: true,
          }) as DecodedGrpcStatus['errorInfo'],
        }
      : {}),
  };
}
