import { describe, expect, it } from 'vitest';
import { backoffMs } from './safe-retry.policy.js';

describe('backoffMs', () => {
  it('doubles from 100 ms to a 2 s ceiling, half of each pause random', () => {
    const ceilings = [100, 200, 400, 800, 1_600, 2_000, 2_000];
    ceilings.forEach((ceiling, i) => {
      expect(backoffMs(i + 1, () => 0)).toBe(ceiling / 2);
      expect(backoffMs(i + 1, () => 1)).toBe(ceiling);
    });
  });
});
