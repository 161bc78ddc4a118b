import { MeshError, type ErrorEnvelope } from '@flowmesh/contracts';
import {
  encodeGrpcStatusDetails,
  GRPC_ERROR_CODE_KEY,
  GRPC_ERROR_ENVELOPE_KEY,
  GRPC_STATUS_DETAILS_KEY,
  GRPC_STATUS_OF,
} from '@flowmesh/contracts/grpc';
import { Metadata } from '@grpc/grpc-js';
import { Catch, Logger, type RpcExceptionFilter } from '@nestjs/common';
import { throwError, type Observable } from 'rxjs';

/** What grpc-js sends as the status of a failed call. */
export interface GrpcStatusError {
  readonly code: number;
  readonly details: string;
  readonly metadata: Metadata;
}

/**
 * Every error of a gRPC handler as a gRPC status: a `MeshError`'s code mapped by
 * `GRPC_STATUS_OF`, its message as the status message, its code and whole envelope in trailing
 * metadata, and the same as the standard `google.rpc.Status` with an `ErrorInfo`. Anything else is INTERNAL with no detail (logged here, never sent: no stack, no secret).
 */
@Catch()
export class GrpcErrorFilter implements RpcExceptionFilter<unknown> {
  private readonly log = new Logger('GrpcApi');

  catch(error: unknown): Observable<never> {
    return throwError(() => toGrpcStatus(error, this.log));
  }
}

export function toGrpcStatus(error: unknown, log?: Logger): GrpcStatusError {
  let envelope: ErrorEnvelope;
  if (error instanceof MeshError) envelope = error.toEnvelope();
  else {
    log?.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    envelope = { code: 'INTERNAL', message: 'internal error' };
  }
  const metadata = new Metadata();
  metadata.set(GRPC_ERROR_CODE_KEY, envelope.code);
  metadata.set(GRPC_ERROR_ENVELOPE_KEY, Buffer.from(JSON.stringify(envelope)));
  metadata.set(GRPC_STATUS_DETAILS_KEY, encodeGrpcStatusDetails(envelope));
  return { code: GRPC_STATUS_OF[envelope.code], details: envelope.message, metadata };
}
