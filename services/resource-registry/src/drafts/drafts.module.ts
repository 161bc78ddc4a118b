import { PersistenceModule } from '@flowmesh/persistence';
import { Module } from '@nestjs/common';
import { VersionsModule } from '../versions/versions.module.js';
import { DeployDraftUseCase } from './deploy-draft.use-case.js';
import { DraftEntity } from './draft.entity.js';
import { DraftRepository } from './draft.repository.js';
import { DraftsController } from './drafts.controller.js';
import { DraftsHandler } from './drafts.handler.js';
import { DraftsService } from './drafts.service.js';
import { UpsertItemUseCase } from './upsert-item.use-case.js';

export const DRAFT_ENTITIES = [DraftEntity];

/** Per-user drafts of resources, scripts and flows: save, list, read (the preview gate), deploy, discard. */
@Module({
  imports: [PersistenceModule.forFeature(DRAFT_ENTITIES), VersionsModule],
  controllers: [DraftsHandler, DraftsController],
  providers: [DraftRepository, DraftsService, DeployDraftUseCase, UpsertItemUseCase],
  exports: [UpsertItemUseCase],
})
export class DraftsModule {}
