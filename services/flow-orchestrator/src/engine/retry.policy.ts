import type { Retry } from '@flowmesh/contracts';

const MAX_ATTEMPTS = 1_000;
const MAX_DELAY_MS = 6 * 60 * 60 * 1000;

/**
 * The delay before the next attempt after `previousAttempts` failed retries, or undefined when
 * none is left. Constant retries come first; then the n-th retry (counting the constant ones)
 * waits multiplier × seconds^n, moved up or down by a random share below `random_factor` %.
 */
export function retryDelayMs(
  retry: Retry | undefined,
  previousAttempts: number,
  random = Math.random,
): number | undefined {
  if (!retry || previousAttempts >= MAX_ATTEMPTS) return undefined;
  const constantAttempts = retry.constant?.attempts ?? 0;
  if (previousAttempts < constantAttempts)
    return Math.min((retry.constant?.seconds ?? 0) * 1000, MAX_DELAY_MS);
  const exponential = retry.exponential;
  if (!exponential || previousAttempts - constantAttempts >= (exponential.attempts ?? 0)) return undefined;
  const n = previousAttempts + 1;
  let seconds = (exponential.multiplier ?? 1) * Math.pow(exponential.seconds ?? 1, n);
  const factor = Math.min(exponential.random_factor ?? 0, 100);
  if (factor > 0) {
    const share = Math.floor(random() * factor);
    const jitter = Math.floor((seconds * share) / 100);
    seconds = random() < 0.5 ? seconds + jitter : Math.max(0, seconds - jitter);
  }
  return Math.min(seconds * 1000, MAX_DELAY_MS);
}
