import { MeshError, type Actor } from '@flowmesh/contracts';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/** The caller's `Authorization: Bearer <token>` as the actor of mesh requests; the registry judges the token. */
export const BearerActor = createParamDecorator((_: unknown, context: ExecutionContext): Actor => {
  const header =
    context.switchToHttp().getRequest<{ headers: { authorization?: string } }>().headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) {
    throw new MeshError('UNAUTHENTICATED', 'the Authorization header must be "Bearer <token>"');
  }
  return { token: match[1] };
});
