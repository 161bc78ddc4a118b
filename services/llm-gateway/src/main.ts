import { bootstrapService } from '@flowmesh/bootstrap';
import { llmGatewayDefinition } from './llm-gateway.definition.js';

await bootstrapService(llmGatewayDefinition);
