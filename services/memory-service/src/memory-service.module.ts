import { SERVICE_SCHEMAS } from '@flowmesh/contracts';
import { MeshClient, MessagingModule } from '@flowmesh/messaging';
import { PersistenceModule } from '@flowmesh/persistence';
import type { Logger } from '@flowmesh/telemetry';
import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { FlowAccess } from './access/flow-access.service.js';
import { RegistryAccessClient } from './access/registry-access.client.js';
import { RegistryAccess } from './access/registry-access.port.js';
import { AppendConversationMessageService } from './conversations/append-conversation-message.service.js';
import { ConversationHandler } from './conversations/conversation.handler.js';
import { ConversationHttpController } from './conversations/conversation.http-controller.js';
import { ConversationRepository } from './conversations/conversation.repository.js';
import { DeleteConversationService } from './conversations/delete-conversation.service.js';
import { ListConversationMessagesService } from './conversations/list-conversation-messages.service.js';
import { ListConversationsService } from './conversations/list-conversations.service.js';
import { StartConversationService } from './conversations/start-conversation.service.js';
import { DeleteMemoryService } from './memory/delete-memory.service.js';
import { GetMemoryService } from './memory/get-memory.service.js';
import { ListMemoriesService } from './memory/list-memories.service.js';
import { LoadMemoryService } from './memory/load-memory.service.js';
import { MemoryHandler } from './memory/memory.handler.js';
import { MemoryHttpController } from './memory/memory.http-controller.js';
import { MemoryRepository } from './memory/memory.repository.js';
import { MemoryStore } from './memory/memory.store.js';
import { SaveMemoryService } from './memory/save-memory.service.js';
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
      controllers: [MemoryHandler, ConversationHandler, MemoryHttpController, ConversationHttpController],
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
        LoadMemoryService,
        SaveMemoryService,
        DeleteMemoryService,
        ListMemoriesService,
        GetMemoryService,
        ConversationRepository,
        StartConversationService,
        AppendConversationMessageService,
        ListConversationsService,
        ListConversationMessagesService,
        DeleteConversationService,
      ],
    };
  }
}
