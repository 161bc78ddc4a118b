import { describe, expect, it } from 'vitest';
import { checkScriptTools } from './agent-tool-inputs.js';

const agent = {
  tools: [
    {
      id: 'lookup',
      value: {
        type: 'script',
        path: 'f/lib/a',
        input_transforms: { q: { type: 'ai' }, limit: { type: 'static', value: 3 } },
      },
    },
    {
      id: 'other',
      value: { type: 'script', path: 'f/lib/b', input_transforms: { gone: { type: 'static', value: 1 } } },
    },
    { id: 'inline', value: { type: 'rawscript', language: 'bun', content: '' } },
  ],
};

describe('checkScriptTools', () => {
  it('checks only the tools running the script: a bound input the script lost is a problem', () => {
    expect(
      checkScriptTools(agent, 'f/lib/a', { type: 'object', properties: { q: {}, limit: {}, extra: {} } }),
    ).toEqual([{ node_id: 'lookup', problems: [] }]);
    expect(checkScriptTools(agent, 'f/lib/a', { type: 'object', properties: { q: {} } })).toEqual([
      { node_id: 'lookup', problems: ["input 'limit' is bound by the tool but f/lib/a no longer takes it"] },
    ]);
  });

  it('a script without a schema, or an agent without such tools, has nothing to check', () => {
    expect(checkScriptTools(agent, 'f/lib/a', null)).toEqual([{ node_id: 'lookup', problems: [] }]);
    expect(checkScriptTools(agent, 'f/lib/zzz', { properties: {} })).toEqual([]);
    expect(checkScriptTools({}, 'f/lib/a', { properties: {} })).toEqual([]);
  });
});
