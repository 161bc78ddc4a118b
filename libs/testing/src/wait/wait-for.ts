import { setTimeout as delay } from 'node:timers/promises';

export interface WaitOptions {
  /** Give up after this long (default 5 s). */
  timeoutMs?: number;
  /** Pause between checks (default 20 ms). */
  intervalMs?: number;
  /** What was awaited, for the timeout error. */
  description?: string;
}

/**
 * Waits until `probe` returns a truthy value and returns it: a test waits for a condition,
 * never for a fixed time. Errors thrown by the probe count as "not yet".
 */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  options: WaitOptions = {},
): Promise<NonNullable<T>> {
  const { timeoutMs = 5_000, intervalMs = 20, description = 'condition' } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}${cause}`, {
        cause: lastError,
      });
    }
    await delay(intervalMs);
  }
}

/**
 * Retries `assertion` until it stops throwing; on timeout rethrows its last failure, so the test
 * report shows the real expectation that did not hold.
 */
export async function expectEventually(
  assertion: () => void | Promise<void>,
  options: WaitOptions = {},
): Promise<void> {
  const { timeoutMs = 5_000, intervalMs = 20 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (error) {
      if (Date.now() >= deadline) throw error;
    }
    await delay(intervalMs);
  }
}
