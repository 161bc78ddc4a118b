import { MeshError, mcpScopeOf } from '@flowmesh/contracts';
import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { CallerRequest } from '../../http/bearer-auth.guard.js';
import { WebhookAuthGuard } from '../webhooks/webhook-auth.guard.js';

/**
 * Who calls the MCP endpoint: a token as on webhooks (`Authorization: Bearer`, or `?token=` for
 * clients that take only a URL, as Windmill's MCP URLs carry it), which must hold an MCP scope
 * (Windmill refuses a token without one too): 401 without a valid token, 403 without the scope.
 */
@Injectable()
export class McpAuthGuard implements CanActivate {
  constructor(private readonly tokens: WebhookAuthGuard) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    await this.tokens.canActivate(context);
    const { caller } = context.switchToHttp().getRequest<CallerRequest>();
    if (!mcpScopeOf(caller?.identity.scopes)) {
      throw new MeshError(
        'PERMISSION_DENIED',
        'this token has no MCP scope: create one with mcp:all, mcp:all:f/<folder>/*, mcp:scripts:<paths> or mcp:flows:<paths>',
      );
    }
    return true;
  }
}
