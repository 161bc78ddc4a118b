import { describe, expect, it } from 'vitest';
import { givesWay } from './tick-rules.js';

const tick = new Date('2026-12-07T10:00:05Z');
const recorded = { completed_at: null, started: true };
const at = (iso: string) => new Date(iso);

describe('givesWay', () => {
  it('lets an on-time tick run beside a running previous run, unless no_flow_overlap', () => {
    const running = { status: 'running' as const, started_at: at('2026-12-07T10:00:04Z') };
    expect(givesWay({ noFlowOverlap: false, tick, late: false }, recorded, running)).toBe(false);
    expect(givesWay({ noFlowOverlap: true, tick, late: false }, recorded, running)).toBe(true);
    const done = { status: 'completed' as const, started_at: at('2026-12-07T10:00:04Z') };
    expect(givesWay({ noFlowOverlap: true, tick, late: false }, recorded, done)).toBe(false);
  });

  it('after a gap, lets only the first missed tick run: the late one started after this tick', () => {
    const late = { noFlowOverlap: false, tick, late: true };
    expect(givesWay(late, recorded, { status: 'queued', started_at: null })).toBe(true);
    expect(givesWay(late, recorded, { status: 'completed', started_at: at('2026-12-07T10:00:09Z') })).toBe(
      true,
    );
    // The previous run ran on time, before the gap: this tick is the first missed one.
    expect(givesWay(late, recorded, { status: 'completed', started_at: at('2026-12-07T10:00:04Z') })).toBe(
      false,
    );
    expect(givesWay(late, recorded, { status: 'cancelled', started_at: null })).toBe(false);
  });

  it('waits for a recorded run that is yet to start', () => {
    expect(
      givesWay({ noFlowOverlap: false, tick, late: true }, { completed_at: null, started: false }, undefined),
    ).toBe(true);
    expect(givesWay({ noFlowOverlap: false, tick, late: true }, recorded, undefined)).toBe(false);
  });
});
