import { registryIdentityContract as contract, type ApiToken } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { AccessService } from '../access/access.service.js';
import { ApiTokensService } from './api-tokens.service.js';

type Req<K extends keyof typeof contract> = z.output<(typeof contract)[K]['request']>;

@Controller()
export class ApiTokensHandler {
  constructor(
    private readonly access: AccessService,
    private readonly tokens: ApiTokensService,
  ) {}

  @HandleRequest(contract.createApiToken)
  async create(@Payload() req: Req<'createApiToken'>): Promise<ApiToken & { token: string }> {
    return this.tokens.create(await this.access.authenticate(req.actor.token, req.workspace), req);
  }

  @HandleRequest(contract.listApiTokens)
  async list(@Payload() req: Req<'listApiTokens'>): Promise<{ tokens: ApiToken[] }> {
    return { tokens: await this.tokens.list(await this.access.authenticate(req.actor.token, req.workspace)) };
  }

  @HandleRequest(contract.revokeApiToken)
  async revoke(@Payload() req: Req<'revokeApiToken'>): Promise<{ done: true }> {
    return this.tokens.revoke(await this.access.authenticate(req.actor.token, req.workspace), req.prefix);
  }
}
