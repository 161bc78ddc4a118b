import { bootstrapService } from '@flowmesh/bootstrap';
import { dependencyLockerDefinition } from './dependency-locker.definition.js';

await bootstrapService(dependencyLockerDefinition);
