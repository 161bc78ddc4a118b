import type { Logger } from '@flowmesh/telemetry';
import { Module, type DynamicModule } from '@nestjs/common';
import type { FlowOrchestratorConfig } from '../flow-orchestrator.config.js';
import { FlowOrchestratorModule } from '../flow-orchestrator.module.js';
import { JobRunner } from './job-runner.service.js';
import { createRunJobHandler } from './run-job.handler.js';

/** The worker role: the orchestrator's connections plus a consumer of jobs for its tags. */
@Module({})
export class OrchestratorWorkerModule {
  static forRoot(config: FlowOrchestratorConfig, logger: Logger): DynamicModule {
    return {
      module: OrchestratorWorkerModule,
      imports: [FlowOrchestratorModule.forRoot(config, logger)],
      controllers: [createRunJobHandler(config.workerTags)],
      providers: [JobRunner],
    };
  }
}
