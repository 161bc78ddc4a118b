import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SettlingDrops } from './settling-drops.js';

describe('SettlingDrops', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it("drops at once, then again a second after the registry's caches let go (stale_for_ms)", () => {
    const drops = new SettlingDrops();
    const apply = vi.fn();
    drops.drop(apply, 3_000);
    expect(apply).toHaveBeenCalledTimes(1);
    expect(drops.pending).toBe(1);
    vi.advanceTimersByTime(3_999);
    expect(apply).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(apply).toHaveBeenCalledTimes(2);
    expect(drops.pending).toBe(0);
  });

  it('waits 2 s after an event that does not say how long the caches keep', () => {
    const drops = new SettlingDrops();
    const apply = vi.fn();
    drops.drop(apply, undefined);
    vi.advanceTimersByTime(1_999);
    expect(apply).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(apply).toHaveBeenCalledTimes(2);
  });

  it('forgets the second drops still to come when cleared', () => {
    const drops = new SettlingDrops();
    const apply = vi.fn();
    drops.drop(apply, 0);
    drops.drop(apply, 5_000);
    expect(drops.pending).toBe(2);
    drops.clear();
    expect(drops.pending).toBe(0);
    vi.advanceTimersByTime(10_000);
    expect(apply).toHaveBeenCalledTimes(2);
  });
});
