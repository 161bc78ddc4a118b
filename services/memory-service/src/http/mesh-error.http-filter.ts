import { MeshError, type ErrorCode } from '@flowmesh/contracts';
import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';

const STATUS: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  LIMIT_EXCEEDED: 413,
  UNSUPPORTED: 501,
  UNAVAILABLE: 503,
  TIMEOUT: 504,
  INTERNAL: 500,
};

/** The part of Express's response this filter uses. */
interface HttpResponse {
  status(code: number): { json(body: unknown): void };
}

/** A `MeshError` from a use case (or from the registry) as an HTTP status with the error envelope as body. */
@Catch(MeshError)
export class MeshErrorHttpFilter implements ExceptionFilter {
  catch(error: MeshError, host: ArgumentsHost): void {
    host.switchToHttp().getResponse<HttpResponse>().status(STATUS[error.code]).json(error.toEnvelope());
  }
}
