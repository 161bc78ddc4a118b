import { MeshError, type ErrorCode } from '@flowmesh/contracts';
import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';

/** The one place a mesh error code becomes an HTTP status. */
export const HTTP_STATUS_OF: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  LIMIT_EXCEEDED: 413,
  UNSUPPORTED: 422,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  TIMEOUT: 504,
};

interface JsonResponse {
  status(code: number): JsonResponse;
  json(body: unknown): void;
}

/**
 * HTTP answers for `MeshError`s: the status from the code, the `{ code, message, details? }`
 * envelope as the body. Other errors keep Nest's handling (a 500 without details). Mesh handlers
 * are not touched: their own filter hands errors to the transport.
 */
@Catch(MeshError)
export class MeshErrorHttpFilter implements ExceptionFilter<MeshError> {
  catch(error: MeshError, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw error;
    host
      .switchToHttp()
      .getResponse<JsonResponse>()
      .status(HTTP_STATUS_OF[error.code])
      .json(error.toEnvelope());
  }
}
