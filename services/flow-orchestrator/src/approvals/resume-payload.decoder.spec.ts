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

describe('lone surrogates', () => {
  const issues = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return (error as { code: string; details: unknown }).code === 'VALIDATION_FAILED'
        ? (error as { details: unknown }).details
        : error;
    }
    return 'accepted';
  };

  it('refuses one in a ?payload= or a JSON form field, naming where it is', () => {
    const lone = { message: expect.stringContaining('lone UTF-16 surrogate') as unknown };
    expect(issues(() => decodeQueryPayload('{"comment":"\\ud800"}'))).toEqual({
      issues: [{ path: 'payload.comment', ...lone }],
    });
    const encoded = Buffer.from('["\\udc00"]').toString('base64url');
    expect(issues(() => decodeQueryPayload(encoded))).toEqual({ issues: [{ path: 'payload[0]', ...lone }] });
    expect(issues(() => decodeFormPayload(schema, { comment: 'ok', tags: '["a\\ud800"]' }))).toEqual({
      issues: [{ path: 'tags[0]', ...lone }],
    });
    expect(decodeQueryPayload('{"comment":"😀 \\ud83d\\ude00"}')).toEqual({ comment: '😀 😀' });
  });
});
