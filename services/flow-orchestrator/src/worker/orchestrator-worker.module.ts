import type { Logger } from '@flowmesh/telemetry';
import { Module, type DynamicModule } from '@nestjs/common';
import { EngineWorkerModule } from './engine-worker.module.js';
import { engineConfigOf, type FlowOrchestratorConfig } from '../flow-orchestrator.config.js';
import { FlowOrchestratorModule } from '../flow-orchestrator.module.js';
import { ScriptRunnersModule } from '../runners/script-runners.module.js';
import { createRunJobHandler } from './run-job.handler.js';

/**
 * The worker role: the orchestrator's connections and engine, plus a consumer of jobs for its
 * tags. It drives the flows it takes (it is their scheduler) and runs their steps.
 */
@Module({})
export class OrchestratorWorkerModule {
  static forRoot(config: FlowOrchestratorConfig, logger: Logger): DynamicModule {
    const engine = engineConfigOf(config);
    return {
      module: OrchestratorWorkerModule,
      imports: [
        FlowOrchestratorModule.forRoot(config, logger, engine),
        EngineWorkerModule.forRoot(
          engine,
          ScriptRunnersModule.forRoot(config.runners, {
            workerTags: config.workerTags,
            defaultMemoryMb: engine.defaultMemoryMb,
            concurrency: engine.workerConcurrency,
          }),
        ),
      ],
      controllers: [createRunJobHandler(config.workerTags, config.engine)],
    };
  }
}
