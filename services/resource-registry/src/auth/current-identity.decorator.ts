import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { AuthenticatedRequest } from './bearer-auth.guard.js';

/** The caller's identity in the route's workspace, set by `BearerAuthGuard`. */
export const CurrentIdentity = createParamDecorator((_: unknown, context: ExecutionContext) => {
  const identity = context.switchToHttp().getRequest<AuthenticatedRequest>().identity;
  if (!identity) throw new Error('@CurrentIdentity() needs BearerAuthGuard on a /api/w/:workspace/ route');
  return identity;
});

/** The caller's account on a route without a workspace, set by `BearerAuthGuard`. */
export const CurrentAccount = createParamDecorator((_: unknown, context: ExecutionContext) => {
  const account = context.switchToHttp().getRequest<AuthenticatedRequest>().account;
  if (!account) throw new Error('@CurrentAccount() needs BearerAuthGuard on a route without :workspace');
  return account;
});
