import { describe, expect, it } from 'vitest';
import {
  agentParts,
  codeSha256,
  flowParts,
  scriptParts,
  withCarriedModuleLocks,
  withCarriedToolLocks,
  writeModuleLocks,
} from './lockable-units.js';

const raw = (id: string, content: string, language = 'bun', extra: Record<string, unknown> = {}) => ({
  id,
  value: { type: 'rawscript', language, content, input_transforms: {}, ...extra },
});

describe('lockable units', () => {
  it('a script is one unit when its language is locked, none otherwise', () => {
    expect(scriptParts('deno', 'x', 'L')).toEqual({
      units: [{ node_id: '', language: 'deno', content: 'x', lock: 'L' }],
      refs: [],
    });
    expect(scriptParts('bash', 'echo', null).units).toEqual([]);
  });

  it('a flow: rawscript steps at any depth and inline agent tools, its references by path', () => {
    const parts = flowParts({
      modules: [
        raw('a', 'import "ms"'),
        {
          id: 'loop',
          value: {
            type: 'forloopflow',
            iterator: { type: 'static', value: [] },
            modules: [raw('b', 'pass', 'python3')],
          },
        },
        { id: 's', value: { type: 'script', path: 'f/lib/x', input_transforms: {} } },
        { id: 'h', value: { type: 'script', path: 'hub/123/slack', input_transforms: {} } },
        { id: 'sub', value: { type: 'flow', path: 'f/lib/sub', input_transforms: {} } },
        {
          id: 'agent',
          value: {
            type: 'aiagent',
            input_transforms: {},
            tools: [
              raw('t1', 'export const x = 1', 'bun', { tool_type: 'flowmodule' }),
              {
                id: 't2',
                value: { tool_type: 'flowmodule', type: 'script', path: 'f/lib/tool', input_transforms: {} },
              },
            ],
          },
        },
        { id: 'linked', value: { type: 'aiagent', agent: '$res:f/ai/helper', input_transforms: {} } },
        raw('sh', 'echo', 'bash'),
      ],
    });
    expect(parts.units.map((u) => `${u.node_id}:${u.language}`)).toEqual(['a:bun', 'b:python3', 't1:bun']);
    expect(
      parts.refs.map((r) => `${r.node_id} ${r.edge_kind} ${r.imported_kind}:${r.imported_path}`),
    ).toEqual([
      's path_step script:f/lib/x',
      'sub path_step flow:f/lib/sub',
      't2 path_tool script:f/lib/tool',
      'linked linked_agent agent:f/ai/helper',
    ]);
  });

  it("an ai_agent resource: its rawscript tools and its tools by path, nested agents' links", () => {
    const parts = agentParts({
      provider: {},
      tools: [
        raw('shout', 'import "/f/lib/a"', 'bun', { tool_type: 'flowmodule' }),
        {
          id: 'lookup',
          value: { tool_type: 'flowmodule', type: 'script', path: 'f/lib/a', input_transforms: {} },
        },
        {
          id: 'inner',
          value: { tool_type: 'flowmodule', type: 'aiagent', agent: 'f/ai/inner', input_transforms: {} },
        },
      ],
    });
    expect(parts.units.map((u) => u.node_id)).toEqual(['shout']);
    expect(parts.refs.map((r) => `${r.node_id} ${r.edge_kind}`)).toEqual([
      'lookup path_tool',
      'inner linked_agent',
    ]);
  });

  it('writes a lock only where the code still hashes to what was locked', () => {
    const value = { modules: [raw('a', 'one'), raw('b', 'two')] };
    const written = writeModuleLocks(
      value,
      new Map([
        ['a', { codeSha256: codeSha256('one'), lock: 'LA' }],
        ['b', { codeSha256: codeSha256('changed since'), lock: 'LB' }],
      ]),
    );
    expect([...written]).toEqual(['a']);
    expect(value.modules.map((m) => (m.value as { lock?: string }).lock)).toEqual(['LA', undefined]);
  });

  it('a save without locks keeps those of the unchanged steps and tools, on a copy', () => {
    const previous = {
      modules: [raw('a', 'one', 'bun', { lock: 'LA' }), raw('b', 'two', 'bun', { lock: 'LB' })],
    };
    const next = Object.freeze({ modules: [raw('a', 'one'), raw('b', 'changed')] });
    const carried = withCarriedModuleLocks(previous, next);
    expect(carried.modules.map((m) => (m.value as { lock?: string }).lock)).toEqual(['LA', undefined]);
    expect(next.modules[0].value).not.toHaveProperty('lock');
    const same = { modules: [raw('a', 'one', 'bun', { lock: 'mine' })] };
    expect(withCarriedModuleLocks(previous, same)).toBe(same);
    const agent = withCarriedToolLocks(
      { tools: previous.modules },
      { provider: {}, tools: [raw('a', 'one')] },
    );
    expect(agent).toEqual({ provider: {}, tools: [raw('a', 'one', 'bun', { lock: 'LA' })] });
  });
});
