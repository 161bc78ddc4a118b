import { describe, expect, it } from 'vitest';
import { expectEventually, waitFor } from './wait-for.js';

describe('waitFor', () => {
  it('returns the first truthy value', async () => {
    let calls = 0;
    await expect(waitFor(() => (++calls >= 3 ? calls : 0), { intervalMs: 1 })).resolves.toBe(3);
  });

  it('names what it waited for when it times out', async () => {
    await expect(
      waitFor(() => false, { timeoutMs: 30, intervalMs: 5, description: 'the queue to drain' }),
    ).rejects.toThrow(/timed out after 30 ms waiting for the queue to drain/);
  });
});

describe('expectEventually', () => {
  it('passes once the assertion holds', async () => {
    let value = 0;
    await expectEventually(() => expect(++value).toBeGreaterThan(2), { intervalMs: 1 });
    expect(value).toBe(3);
  });

  it('rethrows the last failed expectation', async () => {
    await expect(expectEventually(() => expect(1).toBe(2), { timeoutMs: 20, intervalMs: 5 })).rejects.toThrow(
      /expected 1 to be 2/,
    );
  });
});
