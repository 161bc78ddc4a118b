import type { CallerIdentity } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { AuthenticationCache } from './authentication.cache.js';

const value = { identity: { username: 'alice' } as CallerIdentity, expiresAt: null };

describe('AuthenticationCache', () => {
  it('keeps an entry for its time to live only', () => {
    const cache = new AuthenticationCache(1_000);
    cache.set('k', value, 0);
    expect(cache.get('k', 999)).toBe(value);
    expect(cache.get('k', 1_000)).toBeUndefined();
  });

  it('keeps nothing with a time to live of 0, and forgets everything on clear', () => {
    const off = new AuthenticationCache(0);
    off.set('k', value, 0);
    expect(off.get('k', 0)).toBeUndefined();
    const on = new AuthenticationCache(1_000);
    on.set('k', value, 0);
    on.clear();
    expect(on.get('k', 1)).toBeUndefined();
  });

  it('starts over instead of growing past its bound', () => {
    const cache = new AuthenticationCache(1_000, 2);
    cache.set('a', value, 0);
    cache.set('b', value, 0);
    cache.set('c', value, 0);
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.get('c', 1)).toBe(value);
  });

  it('does not keep what a read that began before a clear found (a token revoked meanwhile)', () => {
    const cache = new AuthenticationCache(1_000);
    const begun = cache.generation;
    cache.clear();
    cache.set('k', value, 0, begun);
    expect(cache.get('k', 1)).toBeUndefined();
    cache.set('k', value, 0, cache.generation);
    expect(cache.get('k', 1)).toBe(value);
  });

  it('concurrent misses share one load, kept unless a clear came first; a clear also stops joining', async () => {
    const cache = new AuthenticationCache(1_000);
    let loads = 0;
    let release!: () => void;
    const held = () =>
      new Promise<typeof value>((resolve) => {
        loads++;
        release = () => resolve(value);
      });
    const first = cache.loadOnce('k', 0, held);
    const joined = cache.loadOnce('k', 0, held);
    expect(loads).toBe(1);
    cache.clear();
    const after = cache.loadOnce('k', 0, () => (loads++, Promise.resolve(value)));
    release();
    expect(await first).toBe(value);
    expect(await joined).toBe(value);
    await after;
    expect(loads).toBe(2);
    // The load begun before the clear was not kept; the one after it was.
    expect(cache.get('k', 1)).toBe(value);
    const off = new AuthenticationCache(0);
    const immediate = () => (loads++, Promise.resolve(value));
    await Promise.all([off.loadOnce('k', 0, immediate), off.loadOnce('k', 0, immediate)]);
    expect(loads).toBe(4);
  });
});
