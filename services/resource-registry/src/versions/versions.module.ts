import { PersistenceModule } from '@flowmesh/persistence';
import { Module } from '@nestjs/common';
import { ClearResourceVersionsUseCase } from './clear-resource-versions.use-case.js';
import { ResourceHistoryController } from './resource-history.controller.js';
import { ResourceHistoryHandler } from './resource-history.handler.js';
import { ResourceHistoryRecorder } from './resource-history.recorder.js';
import { ResourceHistoryService } from './resource-history.service.js';
import { ResourceVersionEntity } from './resource-version.entity.js';
import { ResourceVersionRepository } from './resource-version.repository.js';
import { RestoreResourceVersionUseCase } from './restore-resource-version.use-case.js';

export const VERSION_ENTITIES = [ResourceVersionEntity];

/** Resource history: the write listener that appends versions, and list/show/diff/restore/clear. */
@Module({
  imports: [PersistenceModule.forFeature(VERSION_ENTITIES)],
  controllers: [ResourceHistoryHandler, ResourceHistoryController],
  providers: [
    ResourceVersionRepository,
    ResourceHistoryRecorder,
    ResourceHistoryService,
    RestoreResourceVersionUseCase,
    ClearResourceVersionsUseCase,
  ],
  exports: [ResourceVersionRepository, ResourceHistoryService],
})
export class VersionsModule {}
