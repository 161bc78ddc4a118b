import type { MessageHandler } from '@nestjs/microservices';
import { isObservable, lastValueFrom } from 'rxjs';
import type { MeshContext } from './mesh-context.js';

/**
 * Calls a handler as Nest wrapped it (pipes, guards, interceptors, filters) and settles to its
 * result: Nest hands back a value, a promise or an observable, and with the passthrough filter a
 * failure arrives as the original error.
 */
export async function invokeHandler(
  handler: MessageHandler,
  data: unknown,
  context: MeshContext,
): Promise<unknown> {
  const result: unknown = await handler(data, context);
  return isObservable(result) ? lastValueFrom(result, { defaultValue: undefined }) : result;
}
