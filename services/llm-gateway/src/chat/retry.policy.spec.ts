import { describe, expect, it } from 'vitest';
import { fallsBack, retryDelayMs, type RetryPolicy } from './retry.policy.js';

const policy: RetryPolicy = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 5_000 };

describe('retry policy', () => {
  it('retries rate limits and outages with jittered exponential backoff, bounded', () => {
    const outage = { class: 'provider_outage' as const, message: 'x' };
    expect(retryDelayMs(1, outage, policy, () => 0)).toBe(50);
    expect(retryDelayMs(1, outage, policy, () => 1)).toBe(100);
    expect(retryDelayMs(2, outage, policy, () => 1)).toBe(200);
    expect(retryDelayMs(3, outage, policy)).toBeUndefined();
    expect(retryDelayMs(10, outage, { ...policy, maxAttempts: 20 }, () => 1)).toBe(1_000);
  });

  it('honours retry-after, and gives up on a wait longer than allowed', () => {
    expect(retryDelayMs(1, { class: 'rate_limited', message: 'x', retryAfterMs: 1_200 }, policy)).toBe(1_200);
    expect(
      retryDelayMs(1, { class: 'rate_limited', message: 'x', retryAfterMs: 60_000 }, policy),
    ).toBeUndefined();
  });

  it('never retries what a wait cannot fix', () => {
    for (const errorClass of [
      'context_window_exceeded',
      'auth_failed',
      'bad_request_internal',
      'bad_request_user',
      'cancelled',
    ] as const) {
      expect(retryDelayMs(1, { class: errorClass, message: 'x' }, policy)).toBeUndefined();
    }
  });

  it('falls back on unavailability, never on a request error or a cancel', () => {
    expect(fallsBack({ class: 'provider_outage', message: 'x' })).toBe(true);
    expect(fallsBack({ class: 'model_unavailable', message: 'x' })).toBe(true);
    expect(fallsBack({ class: 'bad_request_internal', message: 'x' })).toBe(false);
    expect(fallsBack({ class: 'cancelled', message: 'x' })).toBe(false);
  });
});
