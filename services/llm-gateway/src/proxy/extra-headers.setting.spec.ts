import { describe, expect, it } from 'vitest';
import { parseExtraHeaders } from './extra-headers.setting.js';

describe('parseExtraHeaders', () => {
  it('reads JSON or "Name: value" pairs, names lowercased', () => {
    expect(parseExtraHeaders('{"X-Team":"ml","x-env":"prod"}')).toEqual({
      headers: { 'x-team': 'ml', 'x-env': 'prod' },
    });
    expect(parseExtraHeaders('X-Team: ml; X-Trace: a:b\nX-Env: prod')).toEqual({
      headers: { 'x-team': 'ml', 'x-trace': 'a:b', 'x-env': 'prod' },
    });
    expect(parseExtraHeaders('  ')).toEqual({ headers: {} });
  });

  it('refuses connection headers and malformed input without echoing values', () => {
    expect(parseExtraHeaders('Host: evil')).toEqual({
      problem: '"host" is a connection header and cannot be set',
    });
    expect(parseExtraHeaders('{"x-key": 5}')).toEqual({ problem: 'the value of "x-key" must be a string' });
    expect(parseExtraHeaders('X-Ok: 1; Bearer sk-123')).toEqual({
      problem: 'entry 2 is not a "Name: value" pair',
    });
    expect(parseExtraHeaders('{oops')).toMatchObject({
      problem: expect.stringContaining('JSON object') as unknown,
    });
  });
});
