import { MessagingModule } from '@flowmesh/messaging';
import { PersistenceModule } from '@flowmesh/persistence';
import type { Logger } from '@flowmesh/telemetry';
import { Module, type DynamicModule } from '@nestjs/common';
import type { AgentRuntimeConfig } from './agent-runtime.config.js';
import { AGENT_RUNTIME_MIGRATIONS } from './migrations/index.js';

/** Postgres schema that holds agent-runtime's tables; no other service reads it. */
export const AGENT_RUNTIME_SCHEMA = 'agent_runtime';

/** agent-runtime: runs `aiagent` and `aidecision` steps: the agent loop, tools, memory, approvals. */
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
    };
  }
}
