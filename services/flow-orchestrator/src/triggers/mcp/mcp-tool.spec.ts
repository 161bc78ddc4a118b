import { describe, expect, it } from 'vitest';
import { descriptionOf, inputSchemaOf, toolOf } from './mcp-tool.js';

describe('MCP tools from scripts and flows', () => {
  it('take the item’s input schema as an object schema, without editor keys', () => {
    expect(
      inputSchemaOf({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        order: ['name'],
        properties: { name: { type: 'string', description: 'who' } },
        required: ['name'],
      }),
    ).toEqual({
      type: 'object',
      properties: { name: { type: 'string', description: 'who' } },
      required: ['name'],
    });
    expect(inputSchemaOf(null)).toEqual({ type: 'object', properties: {} });
    expect(inputSchemaOf({ properties: [], required: 'name' })).toEqual({ type: 'object', properties: {} });
  });

  it('describe themselves with the summary, the description and what they run', () => {
    const source = {
      kind: 'flow' as const,
      path: 'f/ops/nightly',
      summary: 'Nightly report',
      description: 'Sends the report.',
      schema: null,
    };
    expect(descriptionOf(source)).toBe(
      'Nightly report\n\nSends the report.\n\nRuns the flow f/ops/nightly in flowmesh and answers with its result.',
    );
    expect(toolOf('f-f_ops_nightly', source)).toMatchObject({
      name: 'f-f_ops_nightly',
      title: 'Nightly report',
      inputSchema: { type: 'object', properties: {} },
    });
    expect(toolOf('x', { ...source, summary: '', description: null })).not.toHaveProperty('title');
  });
});
