import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { OpenFlow } from './flow-value.schema.js';
import { parseOpenFlow } from './parse-openflow.js';
import { serializeOpenFlow } from './serialize-openflow.js';

const document: OpenFlow = {
  summary: 'Greet',
  value: { modules: [{ id: 'a', value: { type: 'identity' } }] },
};

function errorsOf(input: unknown, format?: 'json' | 'yaml'): string[] {
  const result = parseOpenFlow(input, format ? { format } : {});
  return result.ok ? [] : result.errors.map((error) => `${error.path}: ${error.message}`);
}

describe('parseOpenFlow', () => {
  it('reads an object, JSON text and YAML text alike', () => {
    for (const input of [document, JSON.stringify(document), serializeOpenFlow(document, 'yaml')]) {
      const result = parseOpenFlow(input);
      expect(result).toEqual({ ok: true, kind: 'openflow', flow: document, value: document.value });
    }
  });

  it('says whether it read a document or a bare FlowValue', () => {
    const bare = parseOpenFlow(document.value);
    expect(bare.ok && bare.kind).toBe('flow_value');
    expect(bare.ok && bare.value).toEqual(document.value);
    const yaml = parseOpenFlow('modules: []\n');
    expect(yaml.ok && yaml.kind).toBe('flow_value');
  });

  it('narrows the flow by module type', () => {
    const result = parseOpenFlow({
      modules: [
        {
          id: 'loop',
          value: {
            type: 'forloopflow',
            iterator: { type: 'static', value: [1, 2] },
            skip_failures: false,
            modules: [{ id: 'inner', value: { type: 'identity' } }],
          },
        },
      ],
    });
    if (!result.ok) throw new Error('expected a valid flow');
    const loop = result.value.modules[0].value;
    expect(loop.type === 'forloopflow' && loop.modules[0].id).toBe('inner');
  });

  it("reads an agent tool's value without tool_type as a flow-module tool (Windmill's older flows), in the current spelling", () => {
    const tool = {
      type: 'rawscript',
      language: 'bun',
      content: 'export function main() { return 1; }',
      input_transforms: {},
    };
    const agent = (value: unknown) => ({
      modules: [
        {
          id: 'agent',
          value: {
            type: 'aiagent',
            input_transforms: {
              provider: {
                type: 'static',
                value: { kind: 'openai', resource: '$res:f/ai/openai', model: 'm' },
              },
              user_message: { type: 'static', value: 'hi' },
            },
            tools: [{ id: 'one', value }],
          },
        },
      ],
    });
    const result = parseOpenFlow(agent(tool));
    expect(result.ok && result.value).toEqual(agent({ ...tool, tool_type: 'flowmodule' }));
    // Neither a module nor a tool: refused, naming the field.
    expect(errorsOf(agent({ content: 'x' }))[0]).toMatch(/^modules\[0\]\.value\.tools\[0\]\.value/);
  });

  it('reports the kind it recognized even when the flow is invalid', () => {
    const result = parseOpenFlow({ modules: [{ id: 'a' }] });
    expect(result).toEqual({
      ok: false,
      kind: 'flow_value',
      errors: [{ path: 'modules[0].value', message: 'required' }],
    });
  });

  it('turns a JSON syntax error into one error with its line and column', () => {
    expect(errorsOf('{\n  "summary": "x",\n  "value": {"modules": [}\n}')).toEqual([
      "(root): invalid JSON at line 3, column 25: unexpected token '}'",
    ]);
    expect(errorsOf('{"summary": "x"', 'json')).toEqual([
      "(root): invalid JSON at line 1, column 16: expected ',' or '}' after property value",
    ]);
    expect(errorsOf('', 'json')).toEqual([
      '(root): invalid JSON at line 1, column 1: unexpected end of JSON input',
    ]);
  });

  it('turns a YAML syntax error into one error with its line and column', () => {
    expect(errorsOf('summary: x\nvalue: {modules: [}\n')).toEqual([
      '(root): invalid YAML at line 2, column 19: flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
  });

  it('rejects what is not a flow object, saying what it got', () => {
    expect(errorsOf('just text')).toEqual([
      '(root): expected an OpenFlow document or a FlowValue object, got "just text"',
    ]);
    expect(errorsOf('')).toEqual(['(root): expected an OpenFlow document or a FlowValue object, got null']);
    expect(errorsOf(42)).toEqual(['(root): expected an OpenFlow document or a FlowValue object, got 42']);
  });

  it('reads YAML anchors and aliases as copies', () => {
    const text = [
      'summary: anchors',
      'value:',
      '  modules:',
      '    - id: a',
      '      value: &noop {type: identity}',
      '    - id: b',
      '      value: *noop',
    ].join('\n');
    const result = parseOpenFlow(text);
    expect(result.ok && result.value.modules.map((m) => m.value.type)).toEqual(['identity', 'identity']);
  });

  it('never throws, even on a flow nested beyond any sane depth', () => {
    let modules: unknown[] = [{ id: 'leaf', value: { type: 'identity' } }];
    for (let depth = 0; depth < 20_000; depth++) {
      modules = [{ id: `l${depth}`, value: { type: 'whileloopflow', skip_failures: false, modules } }];
    }
    const result = parseOpenFlow({ summary: 'deep', value: { modules } });
    if (!result.ok)
      expect(result.errors).toEqual([
        { path: '(root)', message: 'the flow is nested too deeply to validate' },
      ]);
  });
});

describe('serializeOpenFlow', () => {
  it('writes a value used twice as two copies, not as a YAML alias', () => {
    const noop = { type: 'identity' as const };
    const flow = {
      modules: [
        { id: 'a', value: noop },
        { id: 'b', value: noop },
      ],
    };
    const yaml = serializeOpenFlow(flow, 'yaml');
    expect(yaml).not.toMatch(/[&*]/);
    expect(parseYaml(yaml)).toEqual(flow);
  });

  it('writes JSON a person can read, ending with a newline', () => {
    expect(serializeOpenFlow(document, 'json')).toBe(`${JSON.stringify(document, null, 2)}\n`);
  });
});
