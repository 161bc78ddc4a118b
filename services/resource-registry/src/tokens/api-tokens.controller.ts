import type { CallerIdentity } from '@flowmesh/contracts';
import { validateWith } from '@flowmesh/http';
import { Body, Controller, Delete, Get, Param, Post, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { BearerAuthGuard } from '../auth/bearer-auth.guard.js';
import { CurrentIdentity } from '../auth/current-identity.decorator.js';
import { CreateTokenBodySchema, TokenPrefixSchema, tokenView } from './api-tokens.http.js';
import { ApiTokensService } from './api-tokens.service.js';

@Controller('api/w/:workspace/tokens')
@UseGuards(BearerAuthGuard)
export class ApiTokensController {
  constructor(private readonly tokens: ApiTokensService) {}

  /** The token itself is in this answer and nowhere else, ever. */
  @Post('create')
  async create(
    @CurrentIdentity() identity: CallerIdentity,
    @Body(validateWith(CreateTokenBodySchema)) body: z.output<typeof CreateTokenBodySchema>,
  ) {
    const created = await this.tokens.create(identity, { ...body, expiresAt: body.expiration });
    return { ...tokenView(created), token: created.token };
  }

  @Get('list')
  async list(@CurrentIdentity() identity: CallerIdentity) {
    return (await this.tokens.list(identity)).map(tokenView);
  }

  @Delete('delete/:prefix')
  delete(
    @CurrentIdentity() identity: CallerIdentity,
    @Param('prefix', validateWith(TokenPrefixSchema, 'token prefix')) tokenPrefix: string,
  ) {
    return this.tokens.revoke(identity, tokenPrefix);
  }
}
