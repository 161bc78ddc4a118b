import { describeServiceBasics } from '@flowmesh/testing';
import manifest from '../package.json' with { type: 'json' };
import { dependencyLockerDefinition } from '../src/dependency-locker.definition.js';

describeServiceBasics(dependencyLockerDefinition, { version: manifest.version, schema: 'dependency_locker' });
