import { metrics, type Meter } from '@opentelemetry/api';

/**
 * A meter from the global provider `startTelemetry` registered (a no-op meter before that,
 * so code that records metrics works in unit tests without any set-up).
 */
export function getMeter(name: string, version?: string): Meter {
  return metrics.getMeter(name, version);
}

/**
 * Instruments made on first use rather than at import: a module imported before
 * `startTelemetry` registered the provider would otherwise hold no-op instruments for good.
 * For code outside Nest (plain functions and classes) that records metrics.
 */
export function instrumentsOnFirstUse<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}
