import type { FlowStatus } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { StatusSnapshot } from './flow-status.snapshot.js';

function status(): FlowStatus {
  return {
    step: 1,
    modules: [
      { type: 'Success', id: 'a', job: 'j1' },
      { type: 'InProgress', id: 'b', job: 'j2', flow_jobs: ['c1'] },
      { type: 'WaitingForPriorSteps', id: 'c' },
    ],
    failure_module: { type: 'WaitingForPriorSteps', id: 'failure' },
    retry: { fail_count: 1, failed_jobs: ['j0'] },
  };
}

describe('StatusSnapshot', () => {
  it('encodes the status as it was when taken', () => {
    const live = status();
    const snapshot = new StatusSnapshot(live);
    const expected = structuredClone(live);
    // What a step does next: the module in progress changes in place, others are replaced.
    (live.modules[1] as { flow_jobs: string[] }).flow_jobs.push('c2');
    live.modules[2] = { type: 'InProgress', id: 'c', job: 'j3' };
    live.step = 2;
    delete live.retry;
    expect(JSON.parse(snapshot.encode())).toEqual(expected);
    expect(JSON.parse(new StatusSnapshot(live).encode())).toEqual(live);
  });

  it('encodes a status of no modules and no other fields', () => {
    expect(JSON.parse(new StatusSnapshot({ modules: [] } as unknown as FlowStatus).encode())).toEqual({
      modules: [],
    });
  });
});
