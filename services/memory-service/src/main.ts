import { bootstrapService } from '@flowmesh/bootstrap';
import { memoryServiceDefinition } from './memory-service.definition.js';

await bootstrapService(memoryServiceDefinition);
