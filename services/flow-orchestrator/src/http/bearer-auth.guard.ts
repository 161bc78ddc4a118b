import { requireBearerToken } from '@flowmesh/http';
import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Caller } from './caller.js';
import { RegistryAuthenticator } from './registry-authenticator.js';

/** The parts of an HTTP request the guard reads and writes. */
export interface CallerRequest {
  headers: Record<string, string | string[] | undefined>;
  params: Record<string, string | undefined>;
  caller?: Caller;
}

/**
 * `Authorization: Bearer <token>` on every `/api/w/:workspace/...` route it guards: the token's
 * identity in that workspace, from the registry, becomes `@CurrentCaller()`.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(private readonly authenticator: RegistryAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<CallerRequest>();
    const token = requireBearerToken(request.headers.authorization);
    const workspace = request.params.workspace ?? '';
    request.caller = { identity: await this.authenticator.authenticate(token, workspace), actor: { token } };
    return true;
  }
}
