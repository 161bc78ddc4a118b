import { describe, expect, it } from 'vitest';
import { CredentialsCache } from './credentials.cache.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('CredentialsCache', () => {
  it('reuses a value per workspace, path and caller until it expires', async () => {
    let now = 0;
    const cache = new CredentialsCache<string>({ ttlMs: 1000, maxEntries: 10, now: () => now });
    let calls = 0;
    const resolve = () => Promise.resolve(`v${++calls}`);
    expect(await cache.get('main', 'f/ai/openai', 'token-a', resolve)).toBe('v1');
    expect(await cache.get('main', 'f/ai/openai', 'token-a', resolve)).toBe('v1');
    expect(await cache.get('main', 'f/ai/openai', 'token-b', resolve)).toBe('v2');
    expect(await cache.get('other', 'f/ai/openai', 'token-a', resolve)).toBe('v3');
    now = 1000;
    expect(await cache.get('main', 'f/ai/openai', 'token-a', resolve)).toBe('v4');
  });

  it('shares one resolution between concurrent misses and caches no failure', async () => {
    const cache = new CredentialsCache<string>({ ttlMs: 1000, maxEntries: 10 });
    let calls = 0;
    const gate = deferred<string>();
    const both = Promise.all([
      cache.get('main', 'p', 't', () => (calls++, gate.promise)),
      cache.get('main', 'p', 't', () => (calls++, gate.promise)),
    ]);
    gate.resolve('v');
    expect(await both).toEqual(['v', 'v']);
    expect(calls).toBe(1);
    await expect(cache.get('main', 'q', 't', () => Promise.reject(new Error('denied')))).rejects.toThrow(
      'denied',
    );
    expect(await cache.get('main', 'q', 't', () => Promise.resolve('later'))).toBe('later');
  });

  it('drops every caller of a resource, or of a workspace, on invalidation', async () => {
    const cache = new CredentialsCache<string>({ ttlMs: 60_000, maxEntries: 10 });
    await cache.get('main', 'a', 't1', () => Promise.resolve('a1'));
    await cache.get('main', 'a', 't2', () => Promise.resolve('a2'));
    await cache.get('main', 'b', 't1', () => Promise.resolve('b1'));
    await cache.get('other', 'a', 't1', () => Promise.resolve('o1'));
    expect(cache.invalidateResource('main', 'a')).toBe(2);
    expect(await cache.get('main', 'a', 't1', () => Promise.resolve('a1-new'))).toBe('a1-new');
    expect(await cache.get('main', 'b', 't1', () => Promise.resolve('unused'))).toBe('b1');
    expect(cache.invalidateWorkspace('main')).toBe(2);
    expect(await cache.get('other', 'a', 't1', () => Promise.resolve('unused'))).toBe('o1');
  });

  it('does not store a value resolved before an invalidation that landed meanwhile', async () => {
    const cache = new CredentialsCache<string>({ ttlMs: 60_000, maxEntries: 10 });
    const old = deferred<string>();
    const pending = cache.get('main', 'a', 't', () => old.promise);
    cache.invalidateResource('main', 'a');
    old.resolve('stale');
    expect(await pending).toBe('stale');
    expect(await cache.get('main', 'a', 't', () => Promise.resolve('fresh'))).toBe('fresh');

    const beforeWorkspaceDrop = deferred<string>();
    const second = cache.get('main', 'c', 't', () => beforeWorkspaceDrop.promise);
    cache.invalidateWorkspace('main');
    beforeWorkspaceDrop.resolve('stale');
    await second;
    expect(await cache.get('main', 'c', 't', () => Promise.resolve('fresh'))).toBe('fresh');
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const cache = new CredentialsCache<string>({ ttlMs: 60_000, maxEntries: 2 });
    await cache.get('w', 'a', 't', () => Promise.resolve('a'));
    await cache.get('w', 'b', 't', () => Promise.resolve('b'));
    await cache.get('w', 'c', 't', () => Promise.resolve('c'));
    expect(cache.size).toBe(2);
    expect(await cache.get('w', 'a', 't', () => Promise.resolve('a-again'))).toBe('a-again');
  });
});
