import { describe, expect, it } from 'vitest';
import { requireVersionedRoute, splitHistoryRoute } from './history-route.util.js';

describe('splitHistoryRoute', () => {
  it('reads a trailing number after a whole item path as the version', () => {
    expect(splitHistoryRoute(['f', 'team', 'agent', '12'])).toEqual({ path: 'f/team/agent', version: 12 });
    expect(splitHistoryRoute('u/me/a/b/3')).toEqual({ path: 'u/me/a/b', version: 3 });
  });

  it('keeps everything as the path otherwise', () => {
    expect(splitHistoryRoute(['f', 'team', 'agent'])).toEqual({ path: 'f/team/agent' });
    // `u/me` is no item path, so `7` is the item's name.
    expect(splitHistoryRoute(['u', 'me', '7'])).toEqual({ path: 'u/me/7' });
    expect(splitHistoryRoute(['f', 'team', 'v2'])).toEqual({ path: 'f/team/v2' });
  });

  it('requires a version where the route must name one', () => {
    expect(requireVersionedRoute('f/team/agent/4')).toEqual({ path: 'f/team/agent', version: 4 });
    expect(() => requireVersionedRoute('f/team/agent')).toThrow(/must end in \/<path>\/<version number>/);
  });
});
