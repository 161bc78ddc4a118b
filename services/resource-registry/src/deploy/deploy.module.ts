import { Module } from '@nestjs/common';
import { DraftsModule } from '../drafts/drafts.module.js';
import { DeployController } from './deploy.controller.js';
import { DeployHandler } from './deploy.handler.js';
import { DeployPlanner } from './deploy-planner.service.js';
import { DeployService } from './deploy.service.js';
import { SourceItemReader } from './source-item.reader.js';
import { TargetComparer } from './target-comparer.service.js';

/** Deploy to another workspace: an item with everything it needs, planned (dry run) or applied all or nothing. */
@Module({
  imports: [DraftsModule],
  controllers: [DeployHandler, DeployController],
  providers: [DeployPlanner, DeployService, SourceItemReader, TargetComparer],
})
export class DeployModule {}
