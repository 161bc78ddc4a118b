import { describeServiceBasics } from '@flowmesh/testing';
import manifest from '../package.json' with { type: 'json' };
import { llmGatewayDefinition } from '../src/llm-gateway.definition.js';

describeServiceBasics(llmGatewayDefinition, {
  version: manifest.version,
  schema: 'llm_gateway',
  tables: ['llm_call_audit'],
});
