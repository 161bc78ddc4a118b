import { describe, expect, it } from 'vitest';
import { AuthenticationCache } from './authentication.cache.js';

interface Entry {
  readonly username: string;
  readonly expiresAt?: number;
}
const alice: Entry = { username: 'alice' };

describe('AuthenticationCache', () => {
  it('keeps an entry for its time to live only', () => {
    const cache = new AuthenticationCache<Entry>(1_000);
    cache.set('k', alice, 0);
    expect(cache.get('k', 999)).toBe(alice);
    expect(cache.get('k', 1_000)).toBeUndefined();
  });

  it('keeps nothing with a time to live of 0, and forgets everything on clear', () => {
    const off = new AuthenticationCache<Entry>(0);
    off.set('k', alice, 0);
    expect(off.get('k', 0)).toBeUndefined();
    expect(off.enabled).toBe(false);
    const on = new AuthenticationCache<Entry>(1_000);
    on.set('k', alice, 0);
    on.clear();
    expect(on.get('k', 1)).toBeUndefined();
  });

  it('starts over instead of growing past its bound', () => {
    const cache = new AuthenticationCache<Entry>(1_000, { maxEntries: 2 });
    cache.set('a', alice, 0);
    cache.set('b', alice, 0);
    cache.set('c', alice, 0);
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.get('c', 1)).toBe(alice);
  });

  it('keeps an entry no longer than what it says is valid', () => {
    const cache = new AuthenticationCache<Entry>(1_000, { expiresAtMs: (entry) => entry.expiresAt });
    const expiring = { ...alice, expiresAt: 500 };
    cache.set('k', expiring, 0);
    expect(cache.get('k', 499)).toBe(expiring);
    expect(cache.get('k', 500)).toBeUndefined();
    cache.set('a', alice, 0);
    expect(cache.get('a', 999)).toBe(alice);
  });

  it('does not keep what a read that began before a clear found (a token revoked meanwhile)', () => {
    const cache = new AuthenticationCache<Entry>(1_000);
    const begun = cache.generation;
    cache.clear();
    cache.set('k', alice, 0, begun);
    expect(cache.get('k', 1)).toBeUndefined();
    cache.set('k', alice, 0, cache.generation);
    expect(cache.get('k', 1)).toBe(alice);
  });

  it('concurrent misses share one load, kept unless a clear came first; a clear also stops joining', async () => {
    const cache = new AuthenticationCache<Entry>(1_000);
    let loads = 0;
    let release!: () => void;
    const held = () =>
      new Promise<Entry>((resolve) => {
        loads++;
        release = () => resolve(alice);
      });
    const first = cache.loadOnce('k', 0, held);
    const joined = cache.loadOnce('k', 0, held);
    expect(loads).toBe(1);
    cache.clear();
    const after = cache.loadOnce('k', 0, () => (loads++, Promise.resolve(alice)));
    release();
    expect(await first).toBe(alice);
    expect(await joined).toBe(alice);
    await after;
    expect(loads).toBe(2);
    // The load begun before the clear was not kept; the one after it was.
    expect(cache.get('k', 1)).toBe(alice);
    const off = new AuthenticationCache<Entry>(0);
    const immediate = () => (loads++, Promise.resolve(alice));
    await Promise.all([off.loadOnce('k', 0, immediate), off.loadOnce('k', 0, immediate)]);
    expect(loads).toBe(4);
  });

  it('never keeps a failed load, and the next miss loads again', async () => {
    const cache = new AuthenticationCache<Entry>(1_000);
    await expect(cache.loadOnce('k', 0, () => Promise.reject(new Error('refused')))).rejects.toThrow(
      'refused',
    );
    expect(cache.get('k', 1)).toBeUndefined();
    expect(await cache.loadOnce('k', 1, () => Promise.resolve(alice))).toBe(alice);
    expect(cache.get('k', 2)).toBe(alice);
  });
});
