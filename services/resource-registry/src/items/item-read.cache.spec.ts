import { describe, expect, it } from 'vitest';
import { ItemReadCache, type LoadedItem } from './item-read.cache.js';

const row = (value: string, bytes = 10): LoadedItem<{ value: string }> => ({ row: { value }, bytes });

/** A load that waits until released, to interleave it with invalidations. */
function held(value: string) {
  let release!: () => void;
  const started = new Promise<void>((resolve) => (release = resolve));
  return { release, load: () => started.then(() => row(value)) };
}

describe('ItemReadCache', () => {
  it('answers from memory until the TTL passes, a missing row included', async () => {
    let now = 0;
    let loads = 0;
    const cache = new ItemReadCache({ ttlMs: 1_000, maxBytes: 1_000, now: () => now });
    const load = () => Promise.resolve(row(`v${++loads}`));
    expect(await cache.get('resource', 'main', 'u/a/x', load)).toEqual({ value: 'v1' });
    now = 999;
    expect(await cache.get('resource', 'main', 'u/a/x', load)).toEqual({ value: 'v1' });
    now = 1_000;
    expect(await cache.get('resource', 'main', 'u/a/x', load)).toEqual({ value: 'v2' });
    // Kind and workspace are part of the key.
    expect(await cache.get('variable', 'main', 'u/a/x', load)).toEqual({ value: 'v3' });
    expect(await cache.get('resource', 'other', 'u/a/x', load)).toEqual({ value: 'v4' });
    const missing = () => (loads++, Promise.resolve({ row: null, bytes: 1 }));
    expect(await cache.get('resource', 'main', 'u/a/none', missing)).toBeNull();
    expect(await cache.get('resource', 'main', 'u/a/none', missing)).toBeNull();
    expect(loads).toBe(5);
  });

  it('forgets an item when told, its previous path on a rename too, and only item kinds it keeps', async () => {
    const cache = new ItemReadCache({ ttlMs: 60_000, maxBytes: 1_000, now: () => 0 });
    await cache.get('resource', 'main', 'u/a/old', () => Promise.resolve(row('old')));
    await cache.get('resource', 'main', 'u/a/other', () => Promise.resolve(row('other')));
    await cache.get('variable', 'main', 'u/a/old', () => Promise.resolve(row('variable')));
    cache.invalidateChanged({
      kind: 'resource',
      workspace: 'main',
      path: 'u/a/new',
      previous_path: 'u/a/old',
    });
    cache.invalidateChanged({ kind: 'flow', workspace: 'main', path: 'u/a/other' });
    expect(await cache.get('resource', 'main', 'u/a/old', () => Promise.resolve(row('reloaded')))).toEqual({
      value: 'reloaded',
    });
    expect(await cache.get('resource', 'main', 'u/a/other', () => Promise.resolve(row('x')))).toEqual({
      value: 'other',
    });
    expect(await cache.get('variable', 'main', 'u/a/old', () => Promise.resolve(row('x')))).toEqual({
      value: 'variable',
    });
    cache.invalidateAll();
    expect(await cache.get('variable', 'main', 'u/a/old', () => Promise.resolve(row('x')))).toEqual({
      value: 'x',
    });
  });

  it('never stores a read that began before an invalidation of its item, nor lets a later read join it', async () => {
    const cache = new ItemReadCache({ ttlMs: 60_000, maxBytes: 1_000, now: () => 0 });
    const stale = held('before the write');
    const first = cache.get('resource', 'main', 'u/a/x', stale.load);
    // Concurrent misses share one load...
    const joined = cache.get('resource', 'main', 'u/a/x', () => Promise.resolve(row('unused')));
    cache.invalidate('resource', 'main', 'u/a/x');
    // ...but not across an invalidation.
    const after = cache.get('resource', 'main', 'u/a/x', () => Promise.resolve(row('after the write')));
    stale.release();
    expect(await first).toEqual({ value: 'before the write' });
    expect(await joined).toEqual({ value: 'before the write' });
    expect(await after).toEqual({ value: 'after the write' });
    expect(await cache.get('resource', 'main', 'u/a/x', () => Promise.resolve(row('unused')))).toEqual({
      value: 'after the write',
    });
  });

  it('an invalidation of another item does not stop a read from being kept; forgetting everything does', async () => {
    const cache = new ItemReadCache({ ttlMs: 60_000, maxBytes: 1_000, now: () => 0 });
    const other = held('x');
    const read = cache.get('resource', 'main', 'u/a/x', other.load);
    cache.invalidate('resource', 'main', 'u/a/y');
    other.release();
    await read;
    expect(await cache.get('resource', 'main', 'u/a/x', () => Promise.resolve(row('unused')))).toEqual({
      value: 'x',
    });
    const all = held('y');
    const readAll = cache.get('resource', 'main', 'u/a/z', all.load);
    cache.invalidateAll();
    all.release();
    await readAll;
    expect(await cache.get('resource', 'main', 'u/a/z', () => Promise.resolve(row('fresh')))).toEqual({
      value: 'fresh',
    });
  });

  it('a failed load is not kept and does not block the next one', async () => {
    const cache = new ItemReadCache({ ttlMs: 60_000, maxBytes: 1_000, now: () => 0 });
    await expect(
      cache.get('resource', 'main', 'u/a/x', () => Promise.reject(new Error('down'))),
    ).rejects.toThrow('down');
    expect(await cache.get('resource', 'main', 'u/a/x', () => Promise.resolve(row('up')))).toEqual({
      value: 'up',
    });
  });

  it('stays within its byte budget, dropping the oldest rows, and never keeps one larger than it', async () => {
    const cache = new ItemReadCache({ ttlMs: 60_000, maxBytes: 25, now: () => 0 });
    let loads = 0;
    const load = (value: string, bytes: number) => () => (loads++, Promise.resolve(row(value, bytes)));
    await cache.get('resource', 'main', 'u/a/1', load('1', 10));
    await cache.get('resource', 'main', 'u/a/2', load('2', 10));
    await cache.get('resource', 'main', 'u/a/3', load('3', 10));
    await cache.get('resource', 'main', 'u/a/big', load('big', 26));
    expect(loads).toBe(4);
    await cache.get('resource', 'main', 'u/a/3', load('3', 10));
    await cache.get('resource', 'main', 'u/a/2', load('2', 10));
    expect(loads).toBe(4);
    await cache.get('resource', 'main', 'u/a/1', load('1', 10));
    await cache.get('resource', 'main', 'u/a/big', load('big', 26));
    expect(loads).toBe(6);
  });

  it('with a TTL of 0 always loads', async () => {
    const cache = new ItemReadCache({ ttlMs: 0, maxBytes: 1_000 });
    let loads = 0;
    const load = () => Promise.resolve(row(`v${++loads}`));
    await cache.get('resource', 'main', 'u/a/x', load);
    expect(await cache.get('resource', 'main', 'u/a/x', load)).toEqual({ value: 'v2' });
    expect(cache.enabled).toBe(false);
  });
});
