import { bootstrapService } from '@flowmesh/bootstrap';
import { agentRuntimeDefinition } from './agent-runtime.definition.js';

await bootstrapService(agentRuntimeDefinition);
