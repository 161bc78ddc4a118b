import { PersistenceModule } from '@flowmesh/persistence';
import { Module } from '@nestjs/common';
import { ClearResourceVersionsService } from './clear-resource-versions.service.js';
import { ResourceHistoryController } from './resource-history.controller.js';
import { ResourceHistoryHandler } from './resource-history.handler.js';
import { ResourceHistoryRecorder } from './resource-history.recorder.js';
import { ResourceHistoryService } from './resource-history.service.js';
import { ResourceVersionEntity } from './resource-version.entity.js';
import { ResourceVersionRepository } from './resource-version.repository.js';
import { RestoreResourceVersionService } from './restore-resource-version.service.js';

export const VERSION_ENTITIES = [ResourceVersionEntity];

/** Resource history: the write listener that appends versions, and list/show/diff/restore/clear. */
@Module({
  imports: [PersistenceModule.forFeature(VERSION_ENTITIES)],
  controllers: [ResourceHistoryHandler, ResourceHistoryController],
  providers: [
    ResourceVersionRepository,
    ResourceHistoryRecorder,
    ResourceHistoryService,
    RestoreResourceVersionService,
    ClearResourceVersionsService,
  ],
  exports: [ResourceVersionRepository, ResourceHistoryService],
})
export class VersionsModule {}
