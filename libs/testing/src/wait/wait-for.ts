import { setTimeout as delay } from 'node:timers/promises';

/**
 * How long a wait gives up after unless told: far past what a loaded 2-core machine needs for
 * anything a test waits on, and under vitest's 30 s test timeout, so a wait that fails names what
 * did not happen instead of the test timing out.
 */
export const DEFAULT_WAIT_MS = 20_000;

export interface WaitOptions {
  /** Give up after this long (default DEFAULT_WAIT_MS). */
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
  const { timeoutMs = DEFAULT_WAIT_MS, intervalMs = 20, description = 'condition' } = options;
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
  const { timeoutMs = DEFAULT_WAIT_MS, intervalMs = 20 } = options;
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
