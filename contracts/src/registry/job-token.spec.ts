import { describe, expect, it } from 'vitest';
import { jobTokenAuthority, readJobTokenClaims } from './job-token.js';

const token = (claims: object) =>
  `fmj_${Buffer.from(JSON.stringify(claims)).toString('base64url')}.signature`;
const base = { v: 1, workspace: 'main', jobId: 'j1', onBehalfOf: 'u/alice', exp: 2_000_000_000 };

describe('job token claims', () => {
  it('reads the claims of a token, nothing of anything else', () => {
    expect(readJobTokenClaims(token(base))).toEqual(base);
    expect(readJobTokenClaims('fm_api_token')).toBeUndefined();
    expect(readJobTokenClaims('fmj_not-json.signature')).toBeUndefined();
    expect(readJobTokenClaims(`${token(base)}.extra`)).toBeUndefined();
  });

  it('names one authority for tokens of other jobs and expiries, scopes in any order; another for other scopes or principals', () => {
    const scoped = { ...base, scopes: ['run:f/a', 'read:f/b'] };
    const authority = jobTokenAuthority(token(scoped));
    expect(
      jobTokenAuthority(
        token({ ...scoped, jobId: 'j2', exp: 2_100_000_000, scopes: ['read:f/b', 'run:f/a'] }),
      ),
    ).toBe(authority);
    expect(jobTokenAuthority(token(base))).not.toBe(authority);
    expect(jobTokenAuthority(token({ ...scoped, onBehalfOf: 'u/bob' }))).not.toBe(authority);
    expect(jobTokenAuthority(token({ ...scoped, workspace: 'other' }))).not.toBe(authority);
    expect(jobTokenAuthority('fm_api_token')).toBeUndefined();
  });
});
