import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { CallerRequest } from './bearer-auth.guard.js';
import type { Caller } from './caller.js';

/** The caller in the route's workspace, set by `BearerAuthGuard`. */
export const CurrentCaller = createParamDecorator((_: unknown, context: ExecutionContext): Caller => {
  const caller = context.switchToHttp().getRequest<CallerRequest>().caller;
  if (!caller) throw new Error('@CurrentCaller() needs BearerAuthGuard on a /api/w/:workspace/ route');
  return caller;
});
