import { MessagingModule } from '@flowmesh/messaging';
import { PersistenceModule } from '@flowmesh/persistence';
import type { Logger } from '@flowmesh/telemetry';
import { Module, type DynamicModule } from '@nestjs/common';
import type { MemoryServiceConfig } from './memory-service.config.js';
import { MEMORY_SERVICE_MIGRATIONS } from './migrations/index.js';

/** Postgres schema that holds memory-service's tables; no other service reads it. */
export const MEMORY_SERVICE_SCHEMA = 'memory';

/** memory-service: agent memory and conversation transcripts. */
@Module({})
export class MemoryServiceModule {
  static forRoot(config: MemoryServiceConfig, logger: Logger): DynamicModule {
    return {
      module: MemoryServiceModule,
      imports: [
        MessagingModule.forRoot({
          url: config.nats.url,
          name: config.processName,
          prefix: config.subjectPrefix,
        }),
        PersistenceModule.forRoot({
          databaseUrl: config.database.url,
          schema: MEMORY_SERVICE_SCHEMA,
          entities: [],
          migrations: MEMORY_SERVICE_MIGRATIONS,
          logger: logger.child({ component: 'persistence' }),
        }),
      ],
    };
  }
}
