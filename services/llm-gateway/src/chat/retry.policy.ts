import { TRANSIENT_ERROR_CLASSES, type ProviderError, type ProviderErrorClass } from '@flowmesh/contracts';
import { ProviderCallError } from '../providers/provider-call.error.js';

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

/** A provider call that is not streamed (embeddings, decisions), tried again as a chat would be. */
export async function withRetries<T>(policy: RetryPolicy, call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const delay =
        error instanceof ProviderCallError ? retryDelayMs(attempt, error.providerError, policy) : undefined;
      if (delay === undefined) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
