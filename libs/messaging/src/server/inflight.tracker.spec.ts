import { describe, expect, it } from 'vitest';
import { InflightTracker } from './inflight.tracker.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('InflightTracker', () => {
  it('waits for a free slot', async () => {
    const tracker = new InflightTracker<string>();
    const job = deferred();
    tracker.track(job.promise, 'a');
    let freed = false;
    const waiting = tracker.waitBelow(1).then(() => (freed = true));
    await Promise.resolve();
    expect(freed).toBe(false);
    job.resolve();
    await waiting;
    expect(tracker.size).toBe(0);
  });

  it('reports whether everything finished in time', async () => {
    const tracker = new InflightTracker<string>();
    const job = deferred();
    tracker.track(job.promise, 'stuck');
    expect(await tracker.waitForAll(10)).toBe(false);
    expect(tracker.entries()).toEqual(['stuck']);
    job.resolve();
    expect(await tracker.waitForAll(1_000)).toBe(true);
  });
});
