import { describe, expect, it } from 'vitest';
import { KeyedDrains } from './keyed-drains.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('KeyedDrains', () => {
  it('runs one drain at a time per key, and a request while one waits joins it', async () => {
    const drains = new KeyedDrains(4);
    const first = deferred();
    const log: string[] = [];
    const a = drains.run('s', async () => {
      log.push('first');
      await first.promise;
    });
    await tick();
    const b = drains.run('s', () => Promise.resolve(void log.push('second')));
    const c = drains.run('s', () => Promise.resolve(void log.push('third')));
    await tick();
    expect(log).toEqual(['first']);
    first.resolve();
    await Promise.all([a, b, c]);
    // The third joined the second, which had not begun: it sees all the third would.
    expect(log).toEqual(['first', 'second']);
  });

  it('holds at most max keys at once', async () => {
    const drains = new KeyedDrains(2);
    const gates = [deferred(), deferred(), deferred()];
    let running = 0;
    let most = 0;
    const all = gates.map((gate, i) =>
      drains.run(`k${i}`, async () => {
        running++;
        most = Math.max(most, running);
        await gate.promise;
        running--;
      }),
    );
    await tick();
    expect(running).toBe(2);
    for (const gate of gates) gate.resolve();
    await Promise.all(all);
    expect(most).toBe(2);
  });

  it('passes a failure to its callers and goes on with the next drain', async () => {
    const drains = new KeyedDrains(1);
    const failed = drains.run('s', () => Promise.reject(new Error('database away')));
    await expect(failed).rejects.toThrow('database away');
    let ran = false;
    await drains.run('s', () => Promise.resolve(void (ran = true)));
    expect(ran).toBe(true);
  });
});
