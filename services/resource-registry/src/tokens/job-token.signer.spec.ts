import { describe, expect, it } from 'vitest';
import type { JobTokenClaims } from '@flowmesh/contracts';
import { JobTokenSigner } from './job-token.signer.js';

const claims: JobTokenClaims = {
  v: 1,
  workspace: 'main',
  jobId: 'j1',
  onBehalfOf: 'u/alice',
  scopes: ['flows:read'],
  exp: 2_000_000_000,
};

describe('JobTokenSigner', () => {
  it('verifies what it signed', () => {
    const signer = new JobTokenSigner('k'.repeat(32));
    expect(signer.verify(signer.sign(claims))).toEqual(claims);
  });

  it('refuses another key’s tokens, edited claims and garbage', () => {
    const signer = new JobTokenSigner('k'.repeat(32));
    const token = signer.sign(claims);
    expect(new JobTokenSigner('o'.repeat(32)).verify(token)).toBeUndefined();
    expect(new JobTokenSigner(undefined).verify(token)).toBeUndefined();
    const [body = '', signature = ''] = token.slice(4).split('.');
    const edited = Buffer.from(JSON.stringify({ ...claims, onBehalfOf: 'u/root' })).toString('base64url');
    expect(signer.verify(`fmj_${edited}.${signature}`)).toBeUndefined();
    expect(signer.verify(`fmj_${body}`)).toBeUndefined();
    expect(signer.verify(`fm_${body}.${signature}`)).toBeUndefined();
    expect(signer.verify(`fmj_${body}.${signature}.x`)).toBeUndefined();
    const notClaims = new JobTokenSigner('k'.repeat(32)).sign({
      ...claims,
      v: 2,
    } as unknown as JobTokenClaims);
    expect(signer.verify(notClaims)).toBeUndefined();
  });
});
