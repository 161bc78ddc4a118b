import { describe, expect, it } from 'vitest';
import { AI_PROVIDER_KINDS } from '../openflow/provider.schema.js';
import { ALL_ITEM_EVENTS, ITEM_EVENTS } from './events.contract.js';
import {
  AiAgentResourceValueSchema,
  BUILTIN_RESOURCE_TYPES,
  builtinResourceTypeJsonSchema,
} from './resource-type-builtins.schema.js';

describe('built-in resource types', () => {
  it('cover every AI provider kind and the platform types, once each', () => {
    const names = BUILTIN_RESOURCE_TYPES.map((type) => type.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual([...AI_PROVIDER_KINDS, 'mcp', 'ai_agent', 's3', 'postgresql', 'state', 'cache']);
  });

  it('each has a draft 2020-12 JSON Schema generated from its zod schema', () => {
    for (const type of BUILTIN_RESOURCE_TYPES) {
      const schema = builtinResourceTypeJsonSchema(type);
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    }
    const openai = builtinResourceTypeJsonSchema(BUILTIN_RESOURCE_TYPES.find((t) => t.name === 'openai')!);
    expect(openai).toMatchObject({ type: 'object', required: ['api_key'], additionalProperties: false });
  });

  it('ai_agent reuses the OpenFlow schemas, so a linked step and its agent agree', () => {
    const parsed = AiAgentResourceValueSchema.safeParse({
      provider: { kind: 'anthropic', resource: '$res:u/a/claude', model: 'claude-sonnet-4' },
      memory: { kind: 'auto', context_length: 10 },
      tools: [{ id: 'search', value: { tool_type: 'websearch' } }],
    });
    expect(parsed.success).toBe(true);
    expect(
      AiAgentResourceValueSchema.safeParse({ provider: { kind: 'nope', resource: 'x', model: 'm' } }).success,
    ).toBe(false);
  });
});

describe('item events', () => {
  it('one contract per kind and change, on evt.<kind>.<change>', () => {
    expect(ALL_ITEM_EVENTS.map((event) => event.subject)).toHaveLength(12);
    expect(ITEM_EVENTS.resource.updated.subject).toBe('evt.resource.updated');
    expect(ITEM_EVENTS.flow.deleted.subject).toBe('evt.flow.deleted');
  });
});
