import { SERVICE_SCHEMAS } from '@flowmesh/contracts';
import { MessagingModule } from '@flowmesh/messaging';
import { PersistenceModule } from '@flowmesh/persistence';
import type { Logger } from '@flowmesh/telemetry';
import { Module, type DynamicModule } from '@nestjs/common';
import { AUDIT_ENTITIES, AuditModule } from './audit/audit.module.js';
import { BudgetsModule } from './budgets/budgets.module.js';
import { CHAT_CONFIG } from './chat/chat.config.js';
import { ChatHandler } from './chat/chat.handler.js';
import { ChatRunner } from './chat/chat-runner.service.js';
import { ChatStreams } from './chat/chat-streams.service.js';
import { StartChatService } from './chat/start-chat.service.js';
import { CredentialsModule } from './credentials/credentials.module.js';
import { DecideHandler } from './decisions/decide.handler.js';
import { DecideService } from './decisions/decide.service.js';
import { DecisionsHttpService } from './decisions/decisions-http.service.js';
import { EmbedHandler } from './embeddings/embed.handler.js';
import { EmbedService } from './embeddings/embed.service.js';
import { GenerateImageHandler } from './images/generate-image.handler.js';
import { GenerateImageService } from './images/generate-image.service.js';
import { ImageUpload } from './images/image-upload.js';
import { ChatCompletionsRoute } from './http/chat-completions.route.js';
import { ChatCompletionsService } from './http/chat-completions.service.js';
import { EDGE_CONFIG } from './http/edge.config.js';
import { ModelsAndEmbeddingsService } from './http/models-and-embeddings.service.js';
import { OpenAIApiController, WorkspaceProxyController } from './http/openai-api.controller.js';
import { ProviderCallerService } from './http/provider-caller.service.js';
import type { LlmGatewayConfig } from './llm-gateway.config.js';
import { MediaUrlResolver } from './media/media-url.resolver.js';
import { LLM_GATEWAY_MIGRATIONS } from './migrations/index.js';
import { ListModelsService } from './models/list-models.service.js';
import { CallerProvider } from './providers/caller-provider.js';
import { ModelsHandler } from './models/models.handler.js';
import { ProviderExecutor } from './providers/provider-executor.js';
import { createProviderExecutor } from './providers/provider-executor.factory.js';
import { ProviderRegistry } from './providers/provider-registry.js';
import { WorkspaceProxyService } from './proxy/workspace-proxy.service.js';
import { RecordingRepository } from './recordings/recording.repository.js';
import { RecordingsController } from './recordings/recordings.controller.js';
import { RecordingsService } from './recordings/recordings.service.js';

/** Postgres schema that holds llm-gateway's tables; no other service reads it. */
export const LLM_GATEWAY_SCHEMA = SERVICE_SCHEMAS['llm-gateway'];

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
          entities: [...AUDIT_ENTITIES],
          migrations: LLM_GATEWAY_MIGRATIONS,
          logger: logger.child({ component: 'persistence' }),
        }),
        CredentialsModule.forRoot(config.credentials),
        AuditModule.forRoot(config.audit, logger.child({ component: 'audit' }), config.budgets.prices),
        BudgetsModule.forRoot(config.budgets, logger.child({ component: 'budgets' })),
      ],
      controllers: [
        ChatHandler,
        EmbedHandler,
        DecideHandler,
        GenerateImageHandler,
        ModelsHandler,
        OpenAIApiController,
        WorkspaceProxyController,
        RecordingsController,
      ],
      providers: [
        { provide: CHAT_CONFIG, useValue: config.chat },
        { provide: EDGE_CONFIG, useValue: config.edge },
        { provide: ProviderRegistry, useValue: new ProviderRegistry() },
        { provide: ProviderExecutor, useFactory: () => createProviderExecutor(config.chat, config.edge) },
        {
          provide: MediaUrlResolver,
          useFactory: () => new MediaUrlResolver(config.media, config.edge.outboundAllowCidrs),
        },
        { provide: ImageUpload, useFactory: () => new ImageUpload(config.edge.outboundAllowCidrs) },
        ChatRunner,
        ChatStreams,
        StartChatService,
        EmbedService,
        DecideService,
        DecisionsHttpService,
        GenerateImageService,
        CallerProvider,
        ListModelsService,
        ProviderCallerService,
        ChatCompletionsService,
        ChatCompletionsRoute,
        ModelsAndEmbeddingsService,
        WorkspaceProxyService,
        RecordingRepository,
        RecordingsService,
      ],
    };
  }
}
