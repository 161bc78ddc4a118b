import type { CallerIdentity } from '@flowmesh/contracts';
import { requireBearerToken } from '@flowmesh/http';
import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { AccountIdentity } from './authenticated.js';
import { AuthenticateService } from './authenticate.service.js';

/** The parts of an HTTP request the guard reads and writes. */
export interface AuthenticatedRequest {
  headers: Record<string, string | string[] | undefined>;
  params: Record<string, string | undefined>;
  identity?: CallerIdentity;
  account?: AccountIdentity;
}

/**
 * `Authorization: Bearer <token>` on every guarded route. Under `/api/w/:workspace/...` the
 * token's identity in that workspace becomes `@CurrentIdentity()`; on a route without a workspace
 * (`/api/workspaces/list`) the account becomes `@CurrentAccount()`.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(private readonly auth: AuthenticateService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const token = requireBearerToken(request.headers.authorization);
    const workspace = request.params.workspace;
    if (workspace === undefined) {
      request.account = await this.auth.authenticateAccount(token);
    } else {
      request.identity = (await this.auth.authenticate(token, workspace)).identity;
    }
    return true;
  }
}
