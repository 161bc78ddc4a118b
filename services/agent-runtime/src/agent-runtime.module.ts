import { SERVICE_SCHEMAS } from '@flowmesh/contracts';
import { MessagingModule } from '@flowmesh/messaging';
import { PersistenceModule } from '@flowmesh/persistence';
import type { Logger } from '@flowmesh/telemetry';
import { Module, type DynamicModule } from '@nestjs/common';
import { AGENTS_SETTINGS, type AgentRuntimeConfig } from './agent-runtime.config.js';
import { AttachmentStore } from './attachments/attachment-store.js';
import { MEMORY_TURNS_LOGGER, MemoryTurns } from './memory/memory-turns.js';
import { AGENT_RUNTIME_MIGRATIONS } from './migrations/index.js';
import { AgentRunRepository } from './runs/agent-run.repository.js';
import { AgentRuns } from './runs/agent-runs.service.js';
import { AGENT_LOGGER, AgentStepExecutor } from './runs/agent-step.executor.js';
import { AgentCancelListener } from './steps/agent-cancel.listener.js';
import { AgentStepHandler } from './steps/agent-step.handler.js';
import { AgentTelemetry } from './telemetry/agent.telemetry.js';
import { OutboundClient } from './tools/outbound-client.js';

/** Postgres schema that holds agent-runtime's tables; no other service reads it. */
export const AGENT_RUNTIME_SCHEMA = SERVICE_SCHEMAS['agent-runtime'];

/** agent-runtime: runs `aiagent` steps: the agent loop, its tools and its memory. */
@Module({})
export class AgentRuntimeModule {
  static forRoot(config: AgentRuntimeConfig, logger: Logger): DynamicModule {
    return {
      module: AgentRuntimeModule,
      imports: [
        MessagingModule.forRoot({
          url: config.nats.url,
          name: config.processName,
          prefix: config.subjectPrefix,
        }),
        PersistenceModule.forRoot({
          databaseUrl: config.database.url,
          schema: AGENT_RUNTIME_SCHEMA,
          entities: [],
          migrations: AGENT_RUNTIME_MIGRATIONS,
          logger: logger.child({ component: 'persistence' }),
        }),
      ],
      controllers: [AgentStepHandler],
      providers: [
        { provide: AGENTS_SETTINGS, useValue: config.agents },
        { provide: AGENT_LOGGER, useValue: logger.child({ component: 'agents' }) },
        { provide: MEMORY_TURNS_LOGGER, useValue: logger.child({ component: 'memory-turns' }) },
        { provide: OutboundClient, useValue: new OutboundClient(config.agents.outboundAllowCidrs) },
        ...(config.agents.attachments
          ? [{ provide: AttachmentStore, useValue: new AttachmentStore(config.agents.attachments) }]
          : []),
        AgentRunRepository,
        MemoryTurns,
        AgentStepExecutor,
        AgentTelemetry,
        AgentRuns,
        AgentCancelListener,
      ],
    };
  }
}
