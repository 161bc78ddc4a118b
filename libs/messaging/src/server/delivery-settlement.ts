import type { ErrorEnvelope } from '@flowmesh/contracts';
import { describeFailure, isRetryable } from '../errors/error-envelope.mapper.js';

export type Settlement =
  | { readonly kind: 'retry'; readonly delayMs: number }
  | { readonly kind: 'dead-letter'; readonly reason: ErrorEnvelope };

export interface RetryPolicy {
  readonly maxDeliver: number;
  readonly backoffMs: readonly number[];
}

/**
 * What to do with a JetStream delivery whose handler failed: retry it after the backoff for this
 * attempt, or give up and dead-letter it with the reason when the error is permanent or the
 * deliveries are used up.
 */
export function settleFailure(error: unknown, deliveryCount: number, policy: RetryPolicy): Settlement {
  const reason = describeFailure(error);
  if (!isRetryable(error)) return { kind: 'dead-letter', reason };
  if (deliveryCount >= policy.maxDeliver) {
    return {
      kind: 'dead-letter',
      reason: { ...reason, message: `${reason.message} (gave up after ${deliveryCount} deliveries)` },
    };
  }
  return { kind: 'retry', delayMs: backoffFor(deliveryCount, policy.backoffMs) };
}

/** Delay before the delivery after attempt `deliveryCount` (1-based); the last value repeats. */
export function backoffFor(deliveryCount: number, backoffMs: readonly number[]): number {
  if (backoffMs.length === 0) return 0;
  return backoffMs[Math.min(Math.max(deliveryCount, 1), backoffMs.length) - 1] ?? 0;
}

/** The reason recorded when a delivery beyond the limit arrives: the last allowed one never settled. */
export function exhaustedReason(deliveryCount: number, maxDeliver: number): ErrorEnvelope {
  return {
    code: 'LIMIT_EXCEEDED',
    message: `delivered ${deliveryCount} times, more than the ${maxDeliver} allowed: the last handler never settled (worker died?)`,
  };
}
