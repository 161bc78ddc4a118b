import { describe, expect, it } from 'vitest';
import { freshForMs, MediaCache } from './media-cache.js';
import { ByteBudget, MediaFetcher, MediaFetchFailure } from './media-fetcher.js';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const file = (bytes: number) => ({ mediaType: 'image/png', data: Buffer.alloc(bytes) });

describe('MediaCache', () => {
  it('keeps files per workspace, for the TTL or the shorter max-age, never a no-store one', () => {
    let now = 0;
    const cache = new MediaCache(1_000, 60_000, () => now);
    cache.set('ws1', 'https://x/a.png', file(10), undefined);
    cache.set('ws1', 'https://x/short.png', file(10), 5_000);
    cache.set('ws1', 'https://x/never.png', file(10), 0);
    expect(cache.get('ws1', 'https://x/a.png')?.data.length).toBe(10);
    expect(cache.get('ws2', 'https://x/a.png')).toBeUndefined();
    expect(cache.get('ws1', 'https://x/never.png')).toBeUndefined();
    now = 5_000;
    expect(cache.get('ws1', 'https://x/short.png')).toBeUndefined();
    expect(cache.get('ws1', 'https://x/a.png')).toBeDefined();
    now = 60_000;
    expect(cache.get('ws1', 'https://x/a.png')).toBeUndefined();
    expect(cache.size).toEqual({ entries: 0, bytes: 0 });
  });

  it('holds at most its bytes, the least recently used going first; a file larger than all is not kept', () => {
    const cache = new MediaCache(100, 60_000);
    cache.set('ws', 'a', file(40), undefined);
    cache.set('ws', 'b', file(40), undefined);
    expect(cache.get('ws', 'a')).toBeDefined(); // b is now the least recently used
    cache.set('ws', 'c', file(40), undefined);
    expect(cache.get('ws', 'b')).toBeUndefined();
    expect(cache.get('ws', 'a')).toBeDefined();
    expect(cache.get('ws', 'c')).toBeDefined();
    expect(cache.size).toEqual({ entries: 2, bytes: 80 });
    cache.set('ws', 'huge', file(101), undefined);
    expect(cache.get('ws', 'huge')).toBeUndefined();
    cache.set('ws', 'a', file(60), undefined);
    expect(cache.size).toEqual({ entries: 2, bytes: 100 });
  });

  it('reads Cache-Control', () => {
    expect(freshForMs(null)).toBeUndefined();
    expect(freshForMs('public')).toBeUndefined();
    expect(freshForMs('public, max-age=30')).toBe(30_000);
    expect(freshForMs('max-age=60, no-store')).toBe(0);
    expect(freshForMs('No-Cache')).toBe(0);
    expect(freshForMs('max-age=soon')).toBeUndefined();
  });
});

describe('MediaFetcher with a cache', () => {
  const fetcherWith = (cache: MediaCache) => {
    let calls = 0;
    const fetcher = new MediaFetcher({
      // The outside world: a server answering the PNG.
      fetch: () => {
        calls += 1;
        return Promise.resolve(new Response(PNG, { headers: { 'content-type': 'image/png' } }));
      },
      maxBytes: 1_000,
      timeoutMs: 1_000,
      cache,
    });
    return { fetcher, calls: () => calls };
  };

  it('answers a workspace again from the cache, still checking the type the part accepts and the request budget', async () => {
    const { fetcher, calls } = fetcherWith(new MediaCache(10_000, 60_000));
    const budget = () => new ByteBudget(1_000, 1_000);
    const first = await fetcher.fetch('https://x/cat.png', ['image/png'], budget(), undefined, 'ws1');
    const again = await fetcher.fetch('https://x/cat.png', ['image/png'], budget(), undefined, 'ws1');
    expect(again).toEqual(first);
    expect(calls()).toBe(1);
    await fetcher.fetch('https://x/cat.png', ['image/png'], budget(), undefined, 'ws2');
    expect(calls()).toBe(2);

    const wrongType = await fetcher
      .fetch('https://x/cat.png', ['application/pdf'], budget(), undefined, 'ws1')
      .catch((error: unknown) => error);
    expect(wrongType).toBeInstanceOf(MediaFetchFailure);
    expect((wrongType as MediaFetchFailure).problem).toBe('is image/png, not application/pdf');
    const spent = new ByteBudget(PNG.length - 1, PNG.length - 1);
    const overBudget = await fetcher
      .fetch('https://x/cat.png', ['image/png'], spent, undefined, 'ws1')
      .catch((error: unknown) => error);
    expect((overBudget as MediaFetchFailure).problem).toMatch(/files of one request may add up to/);
    expect(calls()).toBe(2);
  });
});
