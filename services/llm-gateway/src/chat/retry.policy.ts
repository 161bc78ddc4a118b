import { TRANSIENT_ERROR_CLASSES, type ProviderError, type ProviderErrorClass } from '@flowmesh/contracts';

export interface RetryPolicy {
  /** Calls per provider, the first included. */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** A `retry-after` longer than this is not waited for. */
  readonly maxRetryAfterMs: number;
}

/**
 * How long to wait before attempt `attempt + 1` after `error`, or undefined when it must not be
 * retried: only rate limits and outages are, at most `maxAttempts` calls in all, after the
 * provider's `retry-after` when it gave one (never longer than `maxRetryAfterMs`), else after
 * exponential backoff with full jitter.
 */
export function retryDelayMs(
  attempt: number,
  error: ProviderError,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number | undefined {
  if (!TRANSIENT_ERROR_CLASSES.includes(error.class) || attempt >= policy.maxAttempts) return undefined;
  if (error.retryAfterMs !== undefined) {
    return error.retryAfterMs > policy.maxRetryAfterMs ? undefined : error.retryAfterMs;
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Failures after which the next provider of the fallback list is tried. */
const FALLBACK_CLASSES: ReadonlySet<ProviderErrorClass> = new Set([
  'rate_limited',
  'provider_outage',
  'model_unavailable',
  'quota_exceeded',
  'context_window_exceeded',
]);

export function fallsBack(error: ProviderError): boolean {
  return FALLBACK_CLASSES.has(error.class);
}
