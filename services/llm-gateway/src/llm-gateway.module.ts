import { MessagingModule } from '@flowmesh/messaging';
import { PersistenceModule } from '@flowmesh/persistence';
import type { Logger } from '@flowmesh/telemetry';
import { Module, type DynamicModule } from '@nestjs/common';
import type { LlmGatewayConfig } from './llm-gateway.config.js';
import { LLM_GATEWAY_MIGRATIONS } from './migrations/index.js';

/** Postgres schema that holds llm-gateway's tables; no other service reads it. */
export const LLM_GATEWAY_SCHEMA = 'llm_gateway';

/** llm-gateway: every call to an AI provider; the only service that holds provider credentials. */
@Module({})
export class LlmGatewayModule {
  static forRoot(config: LlmGatewayConfig, logger: Logger): DynamicModule {
    return {
      module: LlmGatewayModule,
      imports: [
        MessagingModule.forRoot({
          url: config.nats.url,
          name: config.processName,
          prefix: config.subjectPrefix,
        }),
        PersistenceModule.forRoot({
          databaseUrl: config.database.url,
          schema: LLM_GATEWAY_SCHEMA,
          entities: [],
          migrations: LLM_GATEWAY_MIGRATIONS,
          logger: logger.child({ component: 'persistence' }),
        }),
      ],
    };
  }
}
