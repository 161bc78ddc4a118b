import {
  DraftItemKindSchema,
  DraftValueSchema,
  ItemPathSchema,
  type CallerIdentity,
  type DraftItemKind,
} from '@flowmesh/contracts';
import { itemPath, validateWith } from '@flowmesh/http';
import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import { BearerAuthGuard } from '../auth/bearer-auth.guard.js';
import { CurrentIdentity } from '../auth/current-identity.decorator.js';
import { DeployDraftUseCase } from './deploy-draft.use-case.js';
import { DraftsService } from './drafts.service.js';

const SaveDraftBodySchema = z
  .object({ item_kind: DraftItemKindSchema, path: ItemPathSchema, value: DraftValueSchema })
  .strict();
const ListDraftsQuerySchema = z.object({ item_kind: DraftItemKindSchema.optional() });
const kind = validateWith(DraftItemKindSchema, 'item kind');

/** `/api/w/:workspace/drafts/...`: the caller's own drafts. */
@Controller('api/w/:workspace/drafts')
@UseGuards(BearerAuthGuard)
export class DraftsController {
  constructor(
    private readonly drafts: DraftsService,
    private readonly deployer: DeployDraftUseCase,
  ) {}

  @Get('list')
  list(
    @CurrentIdentity() identity: CallerIdentity,
    @Query(validateWith(ListDraftsQuerySchema, 'query')) query: z.output<typeof ListDraftsQuerySchema>,
  ) {
    return this.drafts.list(identity, query.item_kind);
  }

  @Get('get/:kind/*path')
  get(
    @CurrentIdentity() identity: CallerIdentity,
    @Param('kind', kind) itemKind: DraftItemKind,
    @Param('path', itemPath) path: string,
  ) {
    return this.drafts.get(identity, { item_kind: itemKind, path });
  }

  @Post('save')
  @HttpCode(200)
  save(
    @CurrentIdentity() identity: CallerIdentity,
    @Body(validateWith(SaveDraftBodySchema)) body: z.output<typeof SaveDraftBodySchema>,
  ) {
    return this.drafts.save(identity, body.item_kind, body.path, body.value);
  }

  @Post('deploy/:kind/*path')
  @HttpCode(200)
  deploy(
    @CurrentIdentity() identity: CallerIdentity,
    @Param('kind', kind) itemKind: DraftItemKind,
    @Param('path', itemPath) path: string,
  ) {
    return this.deployer.deploy(identity, itemKind, path);
  }

  @Post('discard/:kind/*path')
  @HttpCode(200)
  discard(
    @CurrentIdentity() identity: CallerIdentity,
    @Param('kind', kind) itemKind: DraftItemKind,
    @Param('path', itemPath) path: string,
  ) {
    return this.drafts.discard(identity, itemKind, path);
  }
}
