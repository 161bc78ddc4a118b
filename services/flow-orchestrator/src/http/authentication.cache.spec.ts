import type { CallerIdentity } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { AuthenticationCache } from './authentication.cache.js';

const alice = { username: 'alice' } as CallerIdentity;

describe('AuthenticationCache', () => {
  it('keeps an identity for its time to live only', () => {
    const cache = new AuthenticationCache(1_000);
    cache.set('k', alice, 0);
    expect(cache.get('k', 999)).toBe(alice);
    expect(cache.get('k', 1_000)).toBeUndefined();
  });

  it('keeps nothing with a time to live of 0', () => {
    const cache = new AuthenticationCache(0);
    cache.set('k', alice, 0);
    expect(cache.get('k', 0)).toBeUndefined();
  });

  it('starts over instead of growing past its bound', () => {
    const cache = new AuthenticationCache(1_000, 2);
    cache.set('a', alice, 0);
    cache.set('b', alice, 0);
    cache.set('c', alice, 0);
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.get('c', 1)).toBe(alice);
  });

  it('keeps an identity no longer than its token is valid, and forgets everything on clear', () => {
    const cache = new AuthenticationCache(1_000);
    const expiring = { ...alice, tokenExpiresAt: new Date(500).toISOString() };
    cache.set('k', expiring, 0);
    expect(cache.get('k', 499)).toBe(expiring);
    expect(cache.get('k', 500)).toBeUndefined();
    cache.set('a', alice, 0);
    cache.clear();
    expect(cache.get('a', 1)).toBeUndefined();
  });
});
