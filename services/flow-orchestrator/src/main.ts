import { bootstrapService } from '@flowmesh/bootstrap';
import { flowOrchestratorDefinition } from './flow-orchestrator.definition.js';

await bootstrapService(flowOrchestratorDefinition);
