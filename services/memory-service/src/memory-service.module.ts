import { SERVICE_SCHEMAS } from '@flowmesh/contracts';
import { MeshClient, MessagingModule } from '@flowmesh/messaging';
import { PersistenceModule } from '@flowmesh/persistence';
import type { Logger } from '@flowmesh/telemetry';
import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { FlowAccess } from './access/flow-access.service.js';
import { RegistryAccessClient } from './access/registry-access.client.js';
import { RegistryAccess } from './access/registry-access.port.js';
import { AppendConversationMessageUseCase } from './conversations/append-conversation-message.use-case.js';
import { ConversationHandler } from './conversations/conversation.handler.js';
import { ConversationHttpController } from './conversations/conversation.http-controller.js';
import { ConversationRepository } from './conversations/conversation.repository.js';
import { DeleteConversationUseCase } from './conversations/delete-conversation.use-case.js';
import { ListConversationMessagesUseCase } from './conversations/list-conversation-messages.use-case.js';
import { ListConversationsUseCase } from './conversations/list-conversations.use-case.js';
import { StartConversationUseCase } from './conversations/start-conversation.use-case.js';
import { AcquireMemoryLockUseCase } from './locks/acquire-memory-lock.use-case.js';
import { MemoryLockHandler } from './locks/memory-lock.handler.js';
import { MemoryLockRepository } from './locks/memory-lock.repository.js';
import { DeleteMemoryUseCase } from './memory/delete-memory.use-case.js';
import { GetMemoryUseCase } from './memory/get-memory.use-case.js';
import { ListMemoriesUseCase } from './memory/list-memories.use-case.js';
import { LoadMemoryUseCase } from './memory/load-memory.use-case.js';
import { MemoryHandler } from './memory/memory.handler.js';
import { MemoryHttpController } from './memory/memory.http-controller.js';
import { MemoryRepository } from './memory/memory.repository.js';
import { MemoryStore } from './memory/memory.store.js';
import { SaveMemoryUseCase } from './memory/save-memory.use-case.js';
import type { MemoryServiceConfig } from './memory-service.config.js';
import { MEMORY_SERVICE_MIGRATIONS } from './migrations/index.js';
import { ObjectStorage } from './storage/object-storage.port.js';
import { S3ObjectStorage } from './storage/s3-object-storage.js';

/** Postgres schema that holds memory-service's tables; no other service reads it. */
export const MEMORY_SERVICE_SCHEMA = SERVICE_SCHEMAS['memory-service'];

/** memory-service: agent memory and conversation transcripts. */
@Module({})
export class MemoryServiceModule {
  static forRoot(config: MemoryServiceConfig, logger: Logger): DynamicModule {
    const s3 = config.memory.s3;
    const objectStorage: Provider[] = s3
      ? [{ provide: ObjectStorage, useFactory: () => new S3ObjectStorage(s3) }]
      : [];
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
      controllers: [
        MemoryHandler,
        MemoryLockHandler,
        ConversationHandler,
        MemoryHttpController,
        ConversationHttpController,
      ],
      providers: [
        ...objectStorage,
        {
          provide: RegistryAccess,
          inject: [MeshClient],
          useFactory: (mesh: MeshClient) => new RegistryAccessClient(mesh),
        },
        FlowAccess,
        MemoryRepository,
        MemoryStore,
        LoadMemoryUseCase,
        SaveMemoryUseCase,
        DeleteMemoryUseCase,
        ListMemoriesUseCase,
        GetMemoryUseCase,
        MemoryLockRepository,
        AcquireMemoryLockUseCase,
        ConversationRepository,
        StartConversationUseCase,
        AppendConversationMessageUseCase,
        ListConversationsUseCase,
        ListConversationMessagesUseCase,
        DeleteConversationUseCase,
      ],
    };
  }
}
