import { bootstrapService } from '@flowmesh/bootstrap';
import { resourceRegistryDefinition } from './resource-registry.definition.js';

await bootstrapService(resourceRegistryDefinition);
