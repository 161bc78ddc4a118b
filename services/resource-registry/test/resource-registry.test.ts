import { describeServiceBasics } from '@flowmesh/testing';
import manifest from '../package.json' with { type: 'json' };
import { resourceRegistryDefinition } from '../src/resource-registry.definition.js';

describeServiceBasics(resourceRegistryDefinition, { version: manifest.version, schema: 'registry' });
