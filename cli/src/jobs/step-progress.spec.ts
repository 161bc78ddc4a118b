import { describe, expect, it } from 'vitest';
import { StepProgress } from './step-progress.js';

describe('StepProgress', () => {
  it('says each step once, as it completes, in flow order', () => {
    const progress = new StepProgress('j1');
    expect(
      progress.linesFor({
        modules: [
          { id: 'a', type: 'Success' },
          { id: 'b', type: 'InProgress' },
          { id: 'c', type: 'WaitingForPriorSteps' },
        ],
      }),
    ).toEqual(['✓ a']);
    expect(
      progress.linesFor({
        modules: [
          { id: 'a', type: 'Success' },
          { id: 'b', type: 'Success', skipped: true },
          { id: 'c', type: 'Failure' },
        ],
        failure_module: { id: 'failure', type: 'Success' },
      }),
    ).toEqual(['- b skipped', '✗ c failed', '✓ failure']);
    expect(progress.linesFor({ modules: [{ id: 'a', type: 'Success' }] })).toEqual([]);
  });

  it('says how to answer an approval once, then the step when it is done', () => {
    const progress = new StepProgress('j1');
    const waiting = { modules: [{ id: 'approve', type: 'WaitingForEvents' }] };
    expect(progress.linesFor(waiting)).toEqual([
      '… approval needed before approve: flowmesh jobs resume j1 (or --deny)',
    ]);
    expect(progress.linesFor(waiting)).toEqual([]);
    expect(progress.linesFor({ modules: [{ id: 'approve', type: 'Success' }] })).toEqual(['✓ approve']);
    expect(progress.linesFor(null)).toEqual([]);
  });
});
