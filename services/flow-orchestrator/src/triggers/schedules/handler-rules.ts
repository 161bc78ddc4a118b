/** A run's outcome, as the handler rules read the schedule's history (newest first). */
export interface PastRun {
  readonly success: boolean | null;
}

/**
 * How many ended runs before a failed one the failure rule reads: none for a handler on every
 * failure; `times - 1` to see a streak of `times`; `times` with `exact` (the run before the
 * streak must be a success).
 */
export function failureHistoryNeeded(times: number, exact: boolean): number {
  if (times <= 1 && !exact) return 0;
  return exact ? times : times - 1;
}

/**
 * Windmill's `on_failure` rule for a failed run: with `times` (at least 1) the handler runs once
 * the failures in a row reach `times` and on every one after; with `exact` only on exactly the
 * `times`-th (the `times - 1` runs before failed and the one before them succeeded: a streak
 * with no success before it, the schedule's very first runs, does not count, as in Windmill).
 * `before`: the ended runs before this one, newest first, `failureHistoryNeeded` of them at most.
 */
export function failureHandlerDue(times: number, exact: boolean, before: readonly PastRun[]): boolean {
  const n = Math.max(1, times);
  if (n === 1 && !exact) return true;
  if (exact)
    return (
      before.length === n &&
      before.slice(0, n - 1).every((past) => past.success === false) &&
      before[n - 1].success === true
    );
  return before.length === n - 1 && before.every((past) => past.success === false);
}

/**
 * Windmill's `on_recovery` rule for a successful run: the `times - 1` runs before it succeeded
 * and the one before them failed, i.e. this run is the `times`-th success after a failure. The
 * failed run (to pass its error), or undefined. `before`: the `times` ended runs before this one,
 * newest first.
 */
export function recoveredFrom<R extends PastRun>(times: number, before: readonly R[]): R | undefined {
  const n = Math.max(1, times);
  if (before.length < n) return undefined;
  if (!before.slice(0, n - 1).every((past) => past.success === true)) return undefined;
  const failed = before[n - 1];
  return failed.success === false ? failed : undefined;
}
