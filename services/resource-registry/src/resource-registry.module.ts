import { SERVICE_SCHEMAS } from '@flowmesh/contracts';
import { MessagingModule } from '@flowmesh/messaging';
import { PersistenceModule } from '@flowmesh/persistence';
import type { Logger } from '@flowmesh/telemetry';
import { Module, type DynamicModule } from '@nestjs/common';
import type { ResourceRegistryConfig } from './resource-registry.config.js';
import { RESOURCE_REGISTRY_MIGRATIONS } from './migrations/index.js';
import { IDENTITY_ENTITIES, IdentityModule } from './identity/identity.module.js';
import { ITEM_ENTITIES, ItemsModule } from './items/items.module.js';
import { VERSION_ENTITIES, VersionsModule } from './versions/versions.module.js';
import { DRAFT_ENTITIES, DraftsModule } from './drafts/drafts.module.js';
import { DeployModule } from './deploy/deploy.module.js';
import { REPLICA_STALE_MS, replicaStaleMs } from './item-events/replica-staleness.js';

/** Postgres schema that holds resource-registry's tables; no other service reads it. */
export const RESOURCE_REGISTRY_SCHEMA = SERVICE_SCHEMAS['resource-registry'];

/** resource-registry: workspaces, users, resources, variables, scripts and flows, with permissions. */
@Module({})
export class ResourceRegistryModule {
  static forRoot(config: ResourceRegistryConfig, logger: Logger): DynamicModule {
    return {
      module: ResourceRegistryModule,
      // Global for the event writers of every module: `stale_for_ms` of item and identity events.
      global: true,
      providers: [
        {
          provide: REPLICA_STALE_MS,
          useValue: replicaStaleMs(config.identity.authCacheMs, config.items.readCache.ttlMs),
        },
      ],
      exports: [REPLICA_STALE_MS],
      imports: [
        MessagingModule.forRoot({
          url: config.nats.url,
          name: config.processName,
          prefix: config.subjectPrefix,
        }),
        PersistenceModule.forRoot({
          databaseUrl: config.database.url,
          schema: RESOURCE_REGISTRY_SCHEMA,
          entities: [...IDENTITY_ENTITIES, ...ITEM_ENTITIES, ...VERSION_ENTITIES, ...DRAFT_ENTITIES],
          migrations: RESOURCE_REGISTRY_MIGRATIONS,
          logger: logger.child({ component: 'persistence' }),
        }),
        IdentityModule.forRoot(config.identity, logger.child({ component: 'identity' })),
        ItemsModule.forRoot(config.items, logger.child({ component: 'items' })),
        VersionsModule,
        DraftsModule,
        DeployModule,
      ],
    };
  }
}
