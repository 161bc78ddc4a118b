import { describeServiceBasics } from '@flowmesh/testing';
import manifest from '../package.json' with { type: 'json' };
import { agentRuntimeDefinition } from '../src/agent-runtime.definition.js';

describeServiceBasics(agentRuntimeDefinition, { version: manifest.version, schema: 'agent_runtime' });
