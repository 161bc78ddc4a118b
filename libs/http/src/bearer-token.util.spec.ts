import { MeshError } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { bearerTokenOf, requireBearerToken } from './bearer-token.util.js';

describe('bearerTokenOf', () => {
  it('reads the scheme in any case (RFC 7235)', () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      expect(bearerTokenOf(`${scheme} fm_abc`)).toBe('fm_abc');
    }
  });

  it('allows any whitespace around the token, and reads the first of several values', () => {
    expect(bearerTokenOf('Bearer \t fm_abc  ')).toBe('fm_abc');
    expect(bearerTokenOf(['bearer fm_first', 'Bearer fm_second'])).toBe('fm_first');
  });

  it('is undefined without a header, without a token, with another scheme or with two tokens', () => {
    for (const header of [
      undefined,
      [],
      '',
      'Bearer',
      'Bearer ',
      'Basic YWxpY2U6cHc=',
      'Bearer a b',
      'fm_abc',
    ]) {
      expect(bearerTokenOf(header)).toBeUndefined();
    }
  });
});

describe('requireBearerToken', () => {
  it('is the token, or UNAUTHENTICATED saying how to send one', () => {
    expect(requireBearerToken('BEARER fm_abc')).toBe('fm_abc');
    const error = (() => {
      try {
        requireBearerToken('Token fm_abc');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(MeshError);
    expect(error).toMatchObject({
      code: 'UNAUTHENTICATED',
      message: 'missing bearer token: send the header "Authorization: Bearer <token>"',
    });
  });
});
