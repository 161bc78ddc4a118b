import { Catch, type ExceptionFilter } from '@nestjs/common';
import { throwError, type Observable } from 'rxjs';

/**
 * Nest's default RPC filter turns every error that is not an `RpcException` into
 * `{ status: 'error', message: 'Internal server error' }`, which would erase a `MeshError`'s code.
 * This filter hands the original error back so the transport maps it: a `MeshError` to its
 * envelope, anything else to `INTERNAL` (logged). Mesh handler decorators apply it.
 */
@Catch()
export class MeshErrorPassthroughFilter implements ExceptionFilter {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}
