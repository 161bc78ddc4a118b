import { PersistenceModule } from '@flowmesh/persistence';
import type { Logger } from '@flowmesh/telemetry';
import { Global, Module, type DynamicModule } from '@nestjs/common';
import { FlowVersionEntity } from '../flows/flow-version.entity.js';
import { FlowEntity } from '../flows/flow.entity.js';
import { FlowRepository } from '../flows/flow.repository.js';
import { FlowsController } from '../flows/flows.controller.js';
import { FlowsHandler } from '../flows/flows.handler.js';
import { ReadFlowsUseCase } from '../flows/read-flows.use-case.js';
import { WriteFlowsUseCase } from '../flows/write-flows.use-case.js';
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
import { ReadResourcesUseCase } from '../resources/read-resources.use-case.js';
import { ResourceWriteListeners } from '../resources/resource-write.listeners.js';
import { ResourceEntity } from '../resources/resource.entity.js';
import { ResourceRepository } from '../resources/resource.repository.js';
import { ResourcesController } from '../resources/resources.controller.js';
import { ResourcesHandler } from '../resources/resources.handler.js';
import { WriteResourcesUseCase } from '../resources/write-resources.use-case.js';
import { secretCipherProvider } from '../secrets/secret-cipher.provider.js';
import { SecretKeyWarning } from '../secrets/secret-key.warning.js';
import { ReadScriptsUseCase } from '../scripts/read-scripts.use-case.js';
import { ScriptVersionEntity } from '../scripts/script-version.entity.js';
import { ScriptEntity } from '../scripts/script.entity.js';
import { ScriptRepository } from '../scripts/script.repository.js';
import { AgentDeployListener } from '../locks/agent-deploy.listener.js';
import { DeployEventWriter } from '../locks/deploy-event.writer.js';
import { LocksHandler } from '../locks/locks.handler.js';
import { AnnounceDeploysUseCase } from '../locks/announce-deploys.use-case.js';
import { RevalidateAgentToolsUseCase } from '../locks/revalidate-agent-tools.use-case.js';
import { RevalidateFlowToolInputsUseCase } from '../locks/revalidate-flow-tool-inputs.use-case.js';
import { WriteLocksUseCase } from '../locks/write-locks.use-case.js';
import { ScriptsController } from '../scripts/scripts.controller.js';
import { ScriptsHandler } from '../scripts/scripts.handler.js';
import { WriteScriptsUseCase } from '../scripts/write-scripts.use-case.js';
import { ReadVariablesUseCase } from '../variables/read-variables.use-case.js';
import { VariableEntity } from '../variables/variable.entity.js';
import { VariableRepository } from '../variables/variable.repository.js';
import { VariablesController } from '../variables/variables.controller.js';
import { VariablesHandler } from '../variables/variables.handler.js';
import { WriteVariablesUseCase } from '../variables/write-variables.use-case.js';
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
  ReadResourcesUseCase,
  WriteResourcesUseCase,
  ResourceWriteListeners,
  ResourceTypesService,
  BuiltinResourceTypesService,
  ReadVariablesUseCase,
  WriteVariablesUseCase,
  ReadScriptsUseCase,
  WriteScriptsUseCase,
  ReadFlowsUseCase,
  WriteFlowsUseCase,
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
        ReadResourcesUseCase,
        WriteResourcesUseCase,
        VariableRepository,
        ReadVariablesUseCase,
        WriteVariablesUseCase,
        ScriptRepository,
        ReadScriptsUseCase,
        WriteScriptsUseCase,
        FlowRepository,
        ReadFlowsUseCase,
        WriteFlowsUseCase,
        InterpolationService,
        SecretKeyWarning,
        DeployEventWriter,
        AgentDeployListener,
        WriteLocksUseCase,
        RevalidateAgentToolsUseCase,
        RevalidateFlowToolInputsUseCase,
        AnnounceDeploysUseCase,
      ],
      exports: EXPORTED,
    };
  }
}
