import { describeServiceBasics } from '@flowmesh/testing';
import manifest from '../package.json' with { type: 'json' };
import { memoryServiceDefinition } from '../src/memory-service.definition.js';

describeServiceBasics(memoryServiceDefinition, {
  version: manifest.version,
  schema: 'memory',
  tables: ['ai_agent_memory', 'flow_conversation', 'flow_conversation_message'],
});
