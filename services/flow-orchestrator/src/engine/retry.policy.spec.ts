import { describe, expect, it } from 'vitest';
import { retryDelayMs } from './retry.policy.js';

describe('retryDelayMs', () => {
  it('waits the constant delay for the constant attempts, then gives up', () => {
    const retry = { constant: { attempts: 2, seconds: 3 } };
    expect([0, 1, 2].map((n) => retryDelayMs(retry, n))).toEqual([3_000, 3_000, undefined]);
  });

  it('waits multiplier × seconds^n for the n-th retry, n counting the constant ones', () => {
    const retry = {
      constant: { attempts: 1, seconds: 1 },
      exponential: { attempts: 3, multiplier: 2, seconds: 3 },
    };
    // retry 1 is constant; retries 2, 3, 4 are exponential: 2·3², 2·3³, 2·3⁴
    expect([0, 1, 2, 3, 4].map((n) => retryDelayMs(retry, n))).toEqual([
      1_000,
      18_000,
      54_000,
      162_000,
      undefined,
    ]);
  });

  it('moves an exponential delay by less than random_factor percent, either way', () => {
    const retry = { exponential: { attempts: 1, multiplier: 1, seconds: 10, random_factor: 50 } };
    const values = [0.99, 0.2]; // share 49 %, then add
    expect(retryDelayMs(retry, 0, () => values.shift()!)).toBe(14_000);
    const down = [0.5, 0.9]; // share 25 %, then subtract
    expect(retryDelayMs(retry, 0, () => down.shift()!)).toBe(8_000);
  });

  it('has nothing to retry without a retry config', () => {
    expect(retryDelayMs(undefined, 0)).toBeUndefined();
    expect(retryDelayMs({}, 0)).toBeUndefined();
  });
});
