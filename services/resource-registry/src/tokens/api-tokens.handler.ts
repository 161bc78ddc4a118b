import {
  registryIdentityContract as contract,
  type ApiToken,
  type CallerIdentity,
  type RequestOf,
} from '@flowmesh/contracts';
import { HandleRequest, MeshCaller } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ApiTokensService } from './api-tokens.service.js';

@Controller()
export class ApiTokensHandler {
  constructor(private readonly tokens: ApiTokensService) {}

  @HandleRequest(contract.createApiToken)
  async create(
    @Payload() req: RequestOf<typeof contract.createApiToken>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<ApiToken & { token: string }> {
    return this.tokens.create(identity, req);
  }

  @HandleRequest(contract.listApiTokens)
  async list(@MeshCaller() identity: CallerIdentity): Promise<{ tokens: ApiToken[] }> {
    return { tokens: await this.tokens.list(identity) };
  }

  @HandleRequest(contract.revokeApiToken)
  async revoke(
    @Payload() req: RequestOf<typeof contract.revokeApiToken>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<{ done: true }> {
    return this.tokens.revoke(identity, req.prefix);
  }
}
