import { describe, expect, it } from 'vitest';
import { checkFlowToolInputs, checkScriptTools, toolScriptPaths } from './agent-tool-inputs.js';

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

describe('checkFlowToolInputs', () => {
  const flow = (toolInputs: unknown, agentRef = 'f/lib/bot') => ({
    modules: [
      { id: 'plain', value: { type: 'rawscript', language: 'bun', content: '' } },
      {
        id: 'ask',
        value: { type: 'aiagent', agent: agentRef, tool_inputs: toolInputs, input_transforms: {} },
      },
    ],
  });
  const agents = new Map([['f/lib/bot', agent]]);
  const schemas = new Map([['f/lib/a', { type: 'object', properties: { q: {}, limit: {} } }]]);

  it("checks each linked step's overrides against its agent's tools and their scripts' inputs", () => {
    expect(
      checkFlowToolInputs(flow({ lookup: { limit: { type: 'static', value: 5 } } }), agents, schemas),
    ).toEqual([{ node_id: 'ask', problems: [] }]);
    expect(
      checkFlowToolInputs(
        flow(
          { lookup: { limit: { type: 'static', value: 5 }, page: { type: 'static', value: 2 } } },
          '$res:f/lib/bot',
        ),
        agents,
        schemas,
      ),
    ).toEqual([
      {
        node_id: 'ask',
        problems: ["tool_inputs override input 'page' of tool 'lookup' but f/lib/a no longer takes it"],
      },
    ]);
  });

  it('a tool the agent no longer has is a problem; inline tools and schemaless scripts are not checked', () => {
    expect(
      checkFlowToolInputs(flow({ gone: {}, inline: { x: {} }, other: { y: {} } }), agents, schemas),
    ).toEqual([
      { node_id: 'ask', problems: ["tool_inputs override tool 'gone', which f/lib/bot no longer has"] },
    ]);
    expect(checkFlowToolInputs(flow(undefined), agents, schemas)).toEqual([{ node_id: 'ask', problems: [] }]);
    expect(toolScriptPaths(agent)).toEqual(['f/lib/a', 'f/lib/b']);
  });
});
