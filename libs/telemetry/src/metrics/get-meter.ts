import { metrics, type Meter } from '@opentelemetry/api';

/**
 * A meter from the global provider `startTelemetry` registered (a no-op meter before that,
 * so code that records metrics works in unit tests without any set-up).
 */
export function getMeter(name: string, version?: string): Meter {
  return metrics.getMeter(name, version);
}
