import { describe, expect, it } from 'vitest';
import { findLoneSurrogate, loneSurrogateError } from './well-formed-text.js';

describe('findLoneSurrogate', () => {
  it('passes well-formed text, astral characters (surrogate pairs) included', () => {
    expect(findLoneSurrogate({ name: 'Ada 😀', list: ['𝄞', 1, null, { ok: true }] })).toBeUndefined();
    expect(findLoneSurrogate(JSON.parse('{"a":"\\ud83d\\ude00"}'))).toBeUndefined();
    expect(findLoneSurrogate(42)).toBeUndefined();
    expect(findLoneSurrogate(null)).toBeUndefined();
  });

  it('names the path of a lone high or low surrogate, in a value or a key', () => {
    expect(findLoneSurrogate(JSON.parse('{"args":{"name":"\\ud800"}}'))).toBe('args.name');
    expect(findLoneSurrogate(JSON.parse('{"args":{"list":[1,{"x":"a\\udc00b"}]}}'))).toBe('args.list[1].x');
    expect(findLoneSurrogate(JSON.parse('{"args":{"\\ud800":1}}'))).toBe('args["\\ud800"]');
    expect(findLoneSurrogate(JSON.parse('["ok","\\udbff"]'))).toBe('[1]');
    expect(findLoneSurrogate(JSON.parse('"\\ud800"'))).toBe('(root)');
    expect(findLoneSurrogate('\ud800', ['payload'])).toBe('payload');
    expect(findLoneSurrogate({ name: '\udfff' }, ['body'])).toBe('body.name');
  });

  it('walks deep documents without recursion', () => {
    let deep: unknown = '\ud800';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findLoneSurrogate(deep)).toBe('[0]'.repeat(100_000));
  });
});

describe('loneSurrogateError', () => {
  it('is VALIDATION_FAILED with the issue at the field', () => {
    expect(loneSurrogateError('request body', { args: { name: 'fine' } })).toBeUndefined();
    const error = loneSurrogateError('request body', { args: { name: '\ud800' } });
    expect(error?.code).toBe('VALIDATION_FAILED');
    expect(error?.details).toEqual({
      issues: [{ path: 'args.name', message: expect.stringContaining('lone UTF-16 surrogate') as unknown }],
    });
  });
});
