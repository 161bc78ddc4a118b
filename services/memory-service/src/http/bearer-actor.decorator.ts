import type { Actor } from '@flowmesh/contracts';
import { requireBearerToken } from '@flowmesh/http';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/** The caller's `Authorization: Bearer <token>` as the actor of mesh requests; the registry judges the token. */
export const BearerActor = createParamDecorator((_: unknown, context: ExecutionContext): Actor => ({
  token: requireBearerToken(
    context.switchToHttp().getRequest<{ headers: { authorization?: string } }>().headers.authorization,
  ),
}));
