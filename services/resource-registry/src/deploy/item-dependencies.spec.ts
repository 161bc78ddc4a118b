import { describe, expect, it } from 'vitest';
import { flowDependencies, itemKey, resourceDependencies } from './item-dependencies.js';

const HASH = 'a'.repeat(64);

describe('flowDependencies', () => {
  it('finds scripts by path and by path+hash, subflows, linked agents, MCP and provider resources', () => {
    const flow = {
      modules: [
        { id: 'a', value: { type: 'script', path: 'f/team/fetch', input_transforms: {} } },
        { id: 'b', value: { type: 'script', path: 'f/team/parse', hash: HASH, input_transforms: {} } },
        {
          id: 'loop',
          value: {
            type: 'forloopflow',
            iterator: { type: 'javascript', expr: '[]' },
            skip_failures: false,
            modules: [{ id: 'c', value: { type: 'flow', path: 'f/team/sub', input_transforms: {} } }],
          },
        },
        { id: 'd', value: { type: 'aiagent', agent: 'f/agents/researcher', input_transforms: {} } },
        {
          id: 'e',
          value: {
            type: 'aiagent',
            input_transforms: {
              provider: {
                type: 'static',
                value: { kind: 'openai', resource: '$res:f/team/openai', model: 'gpt-4o' },
              },
            },
            tools: [
              { id: 'search', value: { tool_type: 'mcp', resource_path: 'f/team/mcp' } },
              {
                id: 'calc',
                value: { tool_type: 'flowmodule', type: 'script', path: 'u/me/calc', input_transforms: {} },
              },
            ],
          },
        },
        { id: 'hub', value: { type: 'script', path: 'hub/123/slack', input_transforms: {} } },
      ],
    };
    expect(flowDependencies(flow).items.map(itemKey).sort()).toEqual(
      [
        'script:f/team/fetch',
        `script:f/team/parse@${HASH}`,
        'flow:f/team/sub',
        'resource:f/agents/researcher',
        'resource:f/team/openai',
        'resource:f/team/mcp',
        'script:u/me/calc',
      ].sort(),
    );
  });

  it('collects $res: and $var: references in static inputs, once each', () => {
    const flow = {
      modules: [
        {
          id: 'a',
          value: { type: 'rawscript', input_transforms: { db: { type: 'static', value: '$res:f/team/db' } } },
        },
        {
          id: 'b',
          value: {
            type: 'rawscript',
            input_transforms: {
              key: { type: 'static', value: '$var:f/team/key' },
              db2: { type: 'static', value: '$res:f/team/db' },
            },
          },
        },
      ],
    };
    expect(flowDependencies(flow)).toEqual({
      items: [{ kind: 'resource', path: 'f/team/db' }],
      variables: ['f/team/key'],
    });
  });
});

describe('resourceDependencies', () => {
  it('follows an agent to its provider, tools (scripts, flows, MCP, nested agents) and references', () => {
    const agent = {
      provider: { kind: 'anthropic', resource: 'f/team/anthropic', model: 'claude' },
      system_prompt: 'be precise',
      tools: [
        {
          id: 'lookup',
          value: {
            tool_type: 'flowmodule',
            type: 'script',
            path: 'f/team/lookup',
            input_transforms: { token: { type: 'static', value: '$var:f/team/token' } },
          },
        },
        {
          id: 'report',
          value: { tool_type: 'flowmodule', type: 'flow', path: 'f/team/report', input_transforms: {} },
        },
        { id: 'docs', value: { tool_type: 'mcp', resource_path: '$res:f/team/docs' } },
        {
          id: 'critic',
          value: { tool_type: 'flowmodule', type: 'aiagent', agent: 'f/agents/critic', input_transforms: {} },
        },
        { id: 'web', value: { tool_type: 'websearch' } },
      ],
    };
    const found = resourceDependencies('ai_agent', agent);
    expect(found.items.map(itemKey).sort()).toEqual(
      [
        'resource:f/team/anthropic',
        'script:f/team/lookup',
        'flow:f/team/report',
        'resource:f/team/docs',
        'resource:f/agents/critic',
      ].sort(),
    );
    expect(found.variables).toEqual(['f/team/token']);
  });

  it('reads only $res:/$var: references of other types, and ignores malformed ones', () => {
    expect(
      resourceDependencies('postgresql', {
        host: 'db',
        password: '$var:f/team/pg_password',
        extra: ['$res:f/team/ca'],
        bad: '$res:nowhere',
      }),
    ).toEqual({ items: [{ kind: 'resource', path: 'f/team/ca' }], variables: ['f/team/pg_password'] });
    expect(resourceDependencies('state', 'just text')).toEqual({ items: [], variables: [] });
  });
});
