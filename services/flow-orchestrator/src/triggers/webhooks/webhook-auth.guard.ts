import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { BearerAuthGuard, type CallerRequest } from '../../http/bearer-auth.guard.js';
import { RegistryAuthenticator } from '../../http/registry-authenticator.js';

/**
 * A webhook's caller: `Authorization: Bearer <token>` as on every route, or, without that header,
 * the `token` query parameter, as Windmill's webhooks take it (a sender that cannot set headers,
 * GitHub's or Stripe's, calls a URL that carries a run token). The parameter never reaches the
 * runnable (`triggerQuery` leaves it out).
 */
@Injectable()
export class WebhookAuthGuard implements CanActivate {
  constructor(
    private readonly bearer: BearerAuthGuard,
    private readonly authenticator: RegistryAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<CallerRequest & { url?: string }>();
    const token = request.headers.authorization === undefined ? queryToken(request.url) : undefined;
    if (token === undefined) return this.bearer.canActivate(context);
    const workspace = request.params.workspace ?? '';
    request.caller = { identity: await this.authenticator.authenticate(token, workspace), actor: { token } };
    return true;
  }
}

function queryToken(url: string | undefined): string | undefined {
  const at = url?.indexOf('?') ?? -1;
  if (at < 0) return undefined;
  const token = new URLSearchParams(url!.slice(at + 1)).get('token');
  return token === null || token === '' ? undefined : token;
}
