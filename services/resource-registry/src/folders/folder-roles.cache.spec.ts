import { describe, expect, it } from 'vitest';
import { FolderRolesCache } from './folder-roles.cache.js';

const roles = (reader: string) => ({ owners: [], writers: [], readers: [reader] });

describe('FolderRolesCache', () => {
  it('answers from memory until the TTL passes, then loads again', async () => {
    let now = 0;
    let loads = 0;
    const cache = new FolderRolesCache(1_000, () => now);
    const load = () => Promise.resolve(roles(`u/r${++loads}`));
    expect(await cache.get('main', 'team', load)).toEqual(roles('u/r1'));
    now = 999;
    expect(await cache.get('main', 'team', load)).toEqual(roles('u/r1'));
    now = 1_000;
    expect(await cache.get('main', 'team', load)).toEqual(roles('u/r2'));
    expect(await cache.get('other', 'team', load)).toEqual(roles('u/r3'));
  });

  it('forgets everything on a local change, and never stores a read that raced with one', async () => {
    const cache = new FolderRolesCache(60_000, () => 0);
    await cache.get('main', 'team', () => Promise.resolve(roles('u/old')));
    cache.invalidate();
    let release!: () => void;
    const slow = cache.get(
      'main',
      'team',
      () => new Promise((resolve) => (release = () => resolve(roles('u/stale')))),
    );
    cache.invalidate();
    release();
    expect(await slow).toEqual(roles('u/stale'));
    expect(await cache.get('main', 'team', () => Promise.resolve(roles('u/new')))).toEqual(roles('u/new'));
  });

  it('remembers a folder that does not exist too', async () => {
    let loads = 0;
    const cache = new FolderRolesCache(60_000, () => 0);
    const missing = () => (loads++, Promise.resolve(undefined));
    await cache.get('main', 'nope', missing);
    await cache.get('main', 'nope', missing);
    expect(loads).toBe(1);
  });

  it('concurrent misses share one load, but none joins a load begun before a change', async () => {
    const cache = new FolderRolesCache(60_000, () => 0);
    let loads = 0;
    let release!: () => void;
    const held = () =>
      new Promise<ReturnType<typeof roles>>((resolve) => {
        loads++;
        release = () => resolve(roles('u/old'));
      });
    const first = cache.get('main', 'team', held);
    const joined = cache.get('main', 'team', held);
    expect(loads).toBe(1);
    cache.invalidate();
    const after = cache.get('main', 'team', () => (loads++, Promise.resolve(roles('u/new'))));
    release();
    expect(await first).toEqual(roles('u/old'));
    expect(await joined).toEqual(roles('u/old'));
    expect(await after).toEqual(roles('u/new'));
    expect(loads).toBe(2);
  });
});
