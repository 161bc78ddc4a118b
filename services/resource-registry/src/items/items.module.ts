import { PersistenceModule } from '@flowmesh/persistence';
import type { Logger } from '@flowmesh/telemetry';
import { Global, Module, type DynamicModule } from '@nestjs/common';
import { FlowVersionEntity } from '../flows/flow-version.entity.js';
import { FlowEntity } from '../flows/flow.entity.js';
import { FlowRepository } from '../flows/flow.repository.js';
import { FlowsController } from '../flows/flows.controller.js';
import { FlowsHandler } from '../flows/flows.handler.js';
import { ReadFlowsService } from '../flows/read-flows.service.js';
import { WriteFlowsService } from '../flows/write-flows.service.js';
import { InterpolateHandler } from '../interpolation/interpolate.handler.js';
import { InterpolationService } from '../interpolation/interpolation.service.js';
import { ItemEventWriter } from '../item-events/item-event.writer.js';
import { ItemEventsCacheListener } from '../item-events/item-events.cache-listener.js';
import { ItemWriteInvalidation } from '../item-events/item-write.invalidation.js';
import { ItemTransactions } from '../item-events/item-transactions.js';
import { RegistryOutboxRelay } from '../item-events/registry-outbox.relay.js';
import { BuiltinResourceTypesService } from '../resource-types/builtin-resource-types.service.js';
import { ResourceTypeEntity } from '../resource-types/resource-type.entity.js';
import { ResourceTypeRepository } from '../resource-types/resource-type.repository.js';
import { ResourceTypesController } from '../resource-types/resource-types.controller.js';
import { ResourceTypesHandler } from '../resource-types/resource-types.handler.js';
import { ResourceTypesService } from '../resource-types/resource-types.service.js';
import { ResourceValueValidator } from '../resource-types/resource-value.validator.js';
import { ReadResourcesService } from '../resources/read-resources.service.js';
import { ResourceWriteListeners } from '../resources/resource-write.listeners.js';
import { ResourceEntity } from '../resources/resource.entity.js';
import { ResourceRepository } from '../resources/resource.repository.js';
import { ResourcesController } from '../resources/resources.controller.js';
import { ResourcesHandler } from '../resources/resources.handler.js';
import { WriteResourcesService } from '../resources/write-resources.service.js';
import { secretCipherProvider } from '../secrets/secret-cipher.provider.js';
import { SecretKeyWarning } from '../secrets/secret-key.warning.js';
import { ReadScriptsService } from '../scripts/read-scripts.service.js';
import { ScriptVersionEntity } from '../scripts/script-version.entity.js';
import { ScriptEntity } from '../scripts/script.entity.js';
import { ScriptRepository } from '../scripts/script.repository.js';
import { AgentDeployListener } from '../locks/agent-deploy.listener.js';
import { DeployEventWriter } from '../locks/deploy-event.writer.js';
import { LocksHandler } from '../locks/locks.handler.js';
import { AnnounceDeploysService } from '../locks/announce-deploys.service.js';
import { RevalidateAgentToolsService } from '../locks/revalidate-agent-tools.service.js';
import { WriteLocksService } from '../locks/write-locks.service.js';
import { ScriptsController } from '../scripts/scripts.controller.js';
import { ScriptsHandler } from '../scripts/scripts.handler.js';
import { WriteScriptsService } from '../scripts/write-scripts.service.js';
import { ReadVariablesService } from '../variables/read-variables.service.js';
import { VariableEntity } from '../variables/variable.entity.js';
import { VariableRepository } from '../variables/variable.repository.js';
import { VariablesController } from '../variables/variables.controller.js';
import { VariablesHandler } from '../variables/variables.handler.js';
import { WriteVariablesService } from '../variables/write-variables.service.js';
import { ItemReadCache } from './item-read.cache.js';
import type { ItemsConfig } from './items.config.js';
import { ITEMS_CONFIG, ITEMS_LOGGER } from './items.tokens.js';

/** Entities of workspace items; the root module lists them in its data source. */
export const ITEM_ENTITIES = [
  ResourceTypeEntity,
  ResourceEntity,
  VariableEntity,
  ScriptEntity,
  ScriptVersionEntity,
  FlowEntity,
  FlowVersionEntity,
];

/** What other parts of the registry (history, drafts, deploy) build on. */
const EXPORTED = [
  ReadResourcesService,
  WriteResourcesService,
  ResourceWriteListeners,
  ResourceTypesService,
  BuiltinResourceTypesService,
  ReadVariablesService,
  WriteVariablesService,
  ReadScriptsService,
  WriteScriptsService,
  ReadFlowsService,
  WriteFlowsService,
  InterpolationService,
  ItemTransactions,
  ItemEventWriter,
];

/**
 * Resource types, resources, variables (secrets encrypted), scripts, flows and interpolation,
 * over NATS (`registryItemsContract`) and HTTP (`/api/w/:workspace/...`, as Windmill's API).
 */
@Global()
@Module({})
export class ItemsModule {
  static forRoot(config: ItemsConfig, logger: Logger): DynamicModule {
    return {
      module: ItemsModule,
      imports: [PersistenceModule.forFeature(ITEM_ENTITIES)],
      controllers: [
        ResourcesHandler,
        ResourcesController,
        ResourceTypesHandler,
        ResourceTypesController,
        VariablesHandler,
        VariablesController,
        ScriptsHandler,
        ScriptsController,
        FlowsHandler,
        FlowsController,
        InterpolateHandler,
        LocksHandler,
      ],
      providers: [
        { provide: ITEMS_CONFIG, useValue: config },
        { provide: ITEMS_LOGGER, useValue: logger },
        secretCipherProvider,
        RegistryOutboxRelay,
        ItemTransactions,
        { provide: ItemReadCache, useValue: new ItemReadCache(config.readCache) },
        ItemWriteInvalidation,
        ItemEventsCacheListener,
        ItemEventWriter,
        ResourceValueValidator,
        ResourceTypeRepository,
        BuiltinResourceTypesService,
        ResourceTypesService,
        ResourceRepository,
        ResourceWriteListeners,
        ReadResourcesService,
        WriteResourcesService,
        VariableRepository,
        ReadVariablesService,
        WriteVariablesService,
        ScriptRepository,
        ReadScriptsService,
        WriteScriptsService,
        FlowRepository,
        ReadFlowsService,
        WriteFlowsService,
        InterpolationService,
        SecretKeyWarning,
        DeployEventWriter,
        AgentDeployListener,
        WriteLocksService,
        RevalidateAgentToolsService,
        AnnounceDeploysService,
      ],
      exports: EXPORTED,
    };
  }
}
