import { describe, expect, it } from 'vitest';
import { decodeFormPayload, decodeQueryPayload } from './resume-payload.decoder.js';

const schema = {
  type: 'object',
  properties: {
    comment: { type: 'string' },
    amount: { type: 'number' },
    urgent: { type: 'boolean' },
    tags: { type: 'array' },
    note: { type: 'string' },
  },
  required: ['comment'],
};

describe('decodeFormPayload', () => {
  it('types each field as the schema says and leaves empty optional ones out', () => {
    expect(
      decodeFormPayload(schema, { comment: 'ok', amount: '12.5', urgent: 'true', tags: '["a"]', note: '' }),
    ).toEqual({
      comment: 'ok',
      amount: 12.5,
      urgent: true,
      tags: ['a'],
    });
    expect(decodeFormPayload(schema, { comment: '' })).toEqual({ comment: '', urgent: false });
  });

  it('refuses a JSON field that is not JSON', () => {
    expect(() => decodeFormPayload(schema, { comment: 'x', tags: '[' })).toThrow(
      'the field "tags" must be JSON',
    );
  });
});

describe('decodeQueryPayload', () => {
  it('reads JSON or base64url JSON, and nothing as an empty object', () => {
    expect(decodeQueryPayload('{"a":1}')).toEqual({ a: 1 });
    expect(decodeQueryPayload(Buffer.from('{"a":2}').toString('base64url'))).toEqual({ a: 2 });
    expect(decodeQueryPayload(undefined)).toEqual({});
    expect(() => decodeQueryPayload('%%%')).toThrow(/payload must be JSON/);
  });
});
