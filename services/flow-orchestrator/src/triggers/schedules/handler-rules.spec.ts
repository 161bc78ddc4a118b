import { describe, expect, it } from 'vitest';
import { failureHandlerDue, failureHistoryNeeded, recoveredFrom } from './handler-rules.js';

const runs = (outcomes: string) => [...outcomes].map((c) => ({ success: c === 'S' }));

describe('schedule handler rules (Windmill)', () => {
  it('runs the failure handler on every failure by default', () => {
    expect(failureHistoryNeeded(1, false)).toBe(0);
    expect(failureHandlerDue(1, false, [])).toBe(true);
  });

  it('waits for a streak of `times` failures, then runs on each one after', () => {
    expect(failureHistoryNeeded(3, false)).toBe(2);
    expect(failureHandlerDue(3, false, runs('S'))).toBe(false);
    expect(failureHandlerDue(3, false, runs('FS'))).toBe(false);
    expect(failureHandlerDue(3, false, runs('F'))).toBe(false); // only 2 failures so far
    expect(failureHandlerDue(3, false, runs('FF'))).toBe(true);
  });

  it('with exact, runs only on the `times`-th failure after a success', () => {
    expect(failureHistoryNeeded(2, true)).toBe(2);
    expect(failureHandlerDue(2, true, runs('FS'))).toBe(true);
    expect(failureHandlerDue(2, true, runs('FF'))).toBe(false); // the 3rd failure or later
    expect(failureHandlerDue(2, true, runs('SS'))).toBe(false); // the 1st failure
    expect(failureHandlerDue(2, true, runs('F'))).toBe(false); // no success before the streak
    expect(failureHandlerDue(1, true, runs('S'))).toBe(true);
    expect(failureHandlerDue(1, true, runs('F'))).toBe(false);
  });

  it('runs the recovery handler on the `times`-th success after a failure, with that failure', () => {
    expect(recoveredFrom(1, runs('F'))).toEqual({ success: false });
    expect(recoveredFrom(1, runs('S'))).toBeUndefined();
    expect(recoveredFrom(1, [])).toBeUndefined();
    expect(recoveredFrom(2, runs('SF'))).toEqual({ success: false });
    expect(recoveredFrom(2, runs('FF'))).toBeUndefined();
    expect(recoveredFrom(2, runs('SS'))).toBeUndefined();
    expect(recoveredFrom(2, runs('F'))).toBeUndefined();
  });
});
