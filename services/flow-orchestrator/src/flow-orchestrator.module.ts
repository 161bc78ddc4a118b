import { SERVICE_SCHEMAS } from '@flowmesh/contracts';
import { MessagingModule } from '@flowmesh/messaging';
import { PersistenceModule } from '@flowmesh/persistence';
import type { Logger } from '@flowmesh/telemetry';
import { Module, type DynamicModule } from '@nestjs/common';
import { engineConfigOf, type FlowOrchestratorConfig } from './flow-orchestrator.config.js';
import { FLOW_ORCHESTRATOR_MIGRATIONS } from './migrations/index.js';
import type { EngineConfig } from './engine/engine.config.js';
import { EngineModule } from './engine/engine.module.js';
import { GrpcApiModule } from './grpc/grpc-api.module.js';
import { AgentStepsHandler } from './jobs/agent-steps.handler.js';
import { JobsModule } from './jobs/jobs.module.js';
import { RunApiModule } from './run-api/run-api.module.js';
import { TriggersModule } from './triggers/triggers.module.js';
import { WorkspaceSettingsModule } from './workspace-settings/workspace-settings.module.js';
import { TimerPoller } from './scheduler/timer.poller.js';
import { ParkedApprovalsMetrics } from './telemetry/parked-approvals.metrics.js';

/** Postgres schema that holds flow-orchestrator's tables; no other service reads it. */
export const FLOW_ORCHESTRATOR_SCHEMA = SERVICE_SCHEMAS['flow-orchestrator'];

/**
 * flow-orchestrator: runs flows and scripts: the OpenFlow state machine, the job queue and the
 * REST run API. Its worker role builds on this module (see worker/).
 */
@Module({})
export class FlowOrchestratorModule {
  static forRoot(
    config: FlowOrchestratorConfig,
    logger: Logger,
    engine: EngineConfig = engineConfigOf(config),
  ): DynamicModule {
    const engineModule = EngineModule.forRoot(engine, config.runners.sandbox);
    const runApi = RunApiModule.forRoot(config, { imports: [engineModule, JobsModule] });
    if (engine.jobTokenKeys.insecureDevelopmentKey) {
      logger.warn(
        'FLOWMESH_JOB_TOKEN_STORE_KEYS is not set: job tokens are sealed at rest with the public development key (insecure-dev), which protects nothing; set it, the same on the orchestrator and its workers (required with NODE_ENV=production)',
      );
    }
    return {
      module: FlowOrchestratorModule,
      imports: [
        MessagingModule.forRoot({
          url: config.nats.url,
          name: config.processName,
          prefix: config.subjectPrefix,
        }),
        PersistenceModule.forRoot({
          databaseUrl: config.database.url,
          schema: FLOW_ORCHESTRATOR_SCHEMA,
          entities: [],
          migrations: FLOW_ORCHESTRATOR_MIGRATIONS,
          poolSize: config.engine.dbPoolSize,
          // Under load a step waits for a connection rather than failing for want of one.
          connectTimeoutMs: 30_000,
          // The engine's statements (by primary key, many CTEs) are prepared and come back all
          // the time: planned once per connection, not once per run as custom plans would be.
          sessionSettings: { plan_cache_mode: 'force_generic_plan' },
          logger: logger.child({ component: 'persistence' }),
        }),
        engineModule,
        JobsModule,
        // The run API (HTTP, `orchestrator.job.*` and gRPC) is the service role's; workers only run jobs.
        ...(config.role === 'service'
          ? [
              runApi,
              GrpcApiModule.forRoot(runApi),
              TriggersModule.forRoot(runApi),
              WorkspaceSettingsModule.forRoot(runApi),
            ]
          : []),
      ],
      // agent-runtime reports on AI steps to the service (one queue group answers each request).
      controllers: config.role === 'service' ? [AgentStepsHandler] : [],
      // Every process wakes the parked jobs whose time has come (sleeps, retries, schedules).
      providers: [TimerPoller, ...(config.role === 'service' ? [ParkedApprovalsMetrics] : [])],
    };
  }
}
