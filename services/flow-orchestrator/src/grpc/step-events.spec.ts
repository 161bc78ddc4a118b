import type { FlowStatus } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { parseWatchOffset } from './job-watch-offset.js';
import { newStepEvents } from './step-events.js';

const status = (...types: string[]) =>
  ({
    modules: types.map((type, i) => ({ type, id: `s${i}`, job: `00000000-0000-4000-8000-00000000000${i}` })),
  }) as unknown as FlowStatus;

const told = (flow: FlowStatus, offsetText = '') => {
  const offset = parseWatchOffset(offsetText);
  const events: string[] = [];
  newStepEvents(flow, offset, (kind, event) => events.push(`${kind} ${event.step_id} ${event.state}`));
  return { events, offset };
};

describe('step events from a flow status', () => {
  it('tells each step started then finished, in step order; waiting steps are not started', () => {
    const { events, offset } = told(status('Success', 'InProgress', 'WaitingForPriorSteps'));
    expect(events).toEqual([
      'step_started s0 InProgress',
      'step_finished s0 Success',
      'step_started s1 InProgress',
    ]);
    expect(offset.steps).toEqual([2, 1]);
  });

  it('tells only what the offset has not: nothing twice', () => {
    expect(told(status('Success', 'Success', 'Failure'), '0.21').events).toEqual([
      'step_finished s1 Success',
      'step_started s2 InProgress',
      'step_finished s2 Failure',
    ]);
    expect(told(status('Success', 'Success'), '0.22').events).toEqual([]);
  });

  it('a step waiting for approvals (WaitingForEvents) has not started; a flow without status has no steps', () => {
    expect(told(status('Success', 'WaitingForEvents'), '0.2').events).toEqual([]);
    expect(told(null as unknown as FlowStatus).events).toEqual([]);
  });
});
