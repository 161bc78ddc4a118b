import { describe, expect, it } from 'vitest';
import { ResourceValueValidator } from './resource-value.validator.js';

describe('ResourceValueValidator', () => {
  const validator = new ResourceValueValidator();

  it('reports every violation with a JSON path rooted at value', () => {
    const schema = {
      type: 'object',
      properties: {
        items: { type: 'array', items: { type: 'object', required: ['id'] } },
        'a/b': { type: 'integer' },
      },
      additionalProperties: false,
    };
    expect(validator.check(schema, { items: [{ id: 1 }, {}], 'a/b': 'x', extra: 1 })).toEqual([
      { path: 'value.extra', message: 'is not an allowed property' },
      { path: 'value.items[1].id', message: 'is required' },
      { path: 'value["a/b"]', message: 'must be integer' },
    ]);
    expect(validator.check(schema, { items: [] })).toEqual([]);
  });

  it('compiles a schema once, however often it is used', () => {
    const schema = { type: 'string', minLength: 1 };
    expect(validator.compile(schema)).toBe(validator.compile({ ...schema }));
  });

  it('takes draft-07 schemas, and two types sharing an $id do not clash', () => {
    const a = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: 'https://example.com/shared.json',
      type: 'string',
    };
    const b = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: 'https://example.com/shared.json',
      type: 'number',
    };
    expect(validator.check(a, 1)).toHaveLength(1);
    expect(validator.check(b, 1)).toEqual([]);
  });

  it('refuses a schema that is not one, and never fetches a remote $ref', () => {
    expect(() => validator.compile({ type: 'banana' })).toThrow(/^schema is not a valid JSON Schema: /);
    expect(() => validator.compile({ $ref: 'https://example.com/schema.json' })).toThrow(
      /can't resolve reference/,
    );
  });
});
