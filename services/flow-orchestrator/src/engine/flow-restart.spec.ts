import { MeshError, type FlowStatus, type FlowValue } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { restartedFlowStatus } from './flow-restart.js';

const RUN = '00000000-0000-4000-8000-000000000001';
const job = (n: number) => `00000000-0000-4000-8000-0000000001${String(n).padStart(2, '0')}`;
const step = (id: string) => ({ id, value: { type: 'identity' } });
const body = { modules: [step('inner')] };

const value = {
  modules: [
    step('a'),
    {
      id: 'loop',
      value: { type: 'forloopflow', iterator: { type: 'javascript', expr: '[1,2,3]' }, ...body },
    },
    { id: 'all', value: { type: 'branchall', branches: [body, body, body] } },
    step('z'),
  ],
} as unknown as FlowValue;

const ended: FlowStatus = {
  step: 3,
  memory_id: 'conv-1',
  modules: [
    { type: 'Success', id: 'a', job: job(1) },
    {
      type: 'Success',
      id: 'loop',
      flow_jobs: [job(2), job(3), job(4)],
      flow_jobs_success: [true, true, true],
      iterator: { index: 2, itered: [1, 2, 3], itered_len: 3 },
    },
    {
      type: 'Failure',
      id: 'all',
      flow_jobs: [job(5), job(6), job(7)],
      flow_jobs_success: [true, false, false],
      branchall: { branch: 1, len: 3 },
    },
    { type: 'WaitingForPriorSteps', id: 'z' },
  ],
  failure_module: { type: 'Success', id: 'failure', job: job(9) },
  retry: { fail_count: 2, failed_jobs: [job(8)] },
};

const refusal = (act: () => unknown): MeshError => {
  try {
    act();
  } catch (error) {
    if (error instanceof MeshError) return error;
    throw error;
  }
  throw new Error('not refused');
};

describe('restartedFlowStatus (Windmill restarted_flows_resolution)', () => {
  it('keeps the modules before the step as they ended, waits from the step on, names the point', () => {
    const status = restartedFlowStatus(value, ended, { flowJobId: RUN, stepId: 'all' });
    expect(status).toEqual({
      step: 2,
      memory_id: 'conv-1',
      modules: [
        ended.modules[0],
        ended.modules[1],
        { type: 'WaitingForPriorSteps', id: 'all' },
        { type: 'WaitingForPriorSteps', id: 'z' },
      ],
      failure_module: { type: 'WaitingForPriorSteps', id: 'failure' },
      restarted_from: { flow_job_id: RUN, step_id: 'all', branch_or_iteration_n: null },
    });
  });

  it('keeps the first n iterations of a sequential for loop, its iterator, and goes on from n', () => {
    const status = restartedFlowStatus(value, ended, {
      flowJobId: RUN,
      stepId: 'loop',
      branchOrIterationN: 2,
    });
    expect(status.step).toBe(1);
    expect(status.modules[1]).toEqual({
      type: 'InProgress',
      id: 'loop',
      flow_jobs: [job(2), job(3)],
      flow_jobs_success: [true, true],
      iterator: { index: 1, itered: [1, 2, 3], itered_len: 3 },
    });
    expect(status.restarted_from?.branch_or_iteration_n).toBe(2);
  });

  it('keeps the first n branches of a sequential branchall', () => {
    const status = restartedFlowStatus(value, ended, {
      flowJobId: RUN,
      stepId: 'all',
      branchOrIterationN: 1,
    });
    expect(status.modules[2]).toEqual({
      type: 'InProgress',
      id: 'all',
      flow_jobs: [job(5)],
      flow_jobs_success: [true],
      branchall: { branch: 0, len: 3 },
    });
  });

  it('n = 0 reruns the whole step', () => {
    const status = restartedFlowStatus(value, ended, {
      flowJobId: RUN,
      stepId: 'loop',
      branchOrIterationN: 0,
    });
    expect(status.modules[1]).toEqual({ type: 'WaitingForPriorSteps', id: 'loop' });
  });

  it('refuses, naming the step: unknown, after a step that failed, n on a plain step, past what ran, a failed branch', () => {
    const cases: Array<[string, number | undefined, string]> = [
      ['nope', undefined, 'has no top-level step "nope" (its steps: a, loop, all, z)'],
      ['z', undefined, 'step "all" before it did not succeed (it is Failure)'],
      ['a', 1, 'it is a identity step, not a for loop or a branchall'],
      ['loop', 3, 'the earlier run started only 3 iterations'],
      ['all', 2, 'branch 1 did not succeed'],
    ];
    for (const [stepId, n, reason] of cases) {
      const error = refusal(() =>
        restartedFlowStatus(value, ended, {
          flowJobId: RUN,
          stepId,
          ...(n === undefined ? {} : { branchOrIterationN: n }),
        }),
      );
      expect([stepId, error.code, error.message]).toEqual([
        stepId,
        'VALIDATION_FAILED',
        expect.stringContaining(reason),
      ]);
    }
  });

  it('refuses an iteration of a parallel loop', () => {
    const parallel = {
      modules: [{ id: 'loop', value: { ...(value.modules[1].value as object), parallel: true } }],
    } as unknown as FlowValue;
    const error = refusal(() =>
      restartedFlowStatus(
        parallel,
        { ...ended, modules: [ended.modules[1]] },
        { flowJobId: RUN, stepId: 'loop', branchOrIterationN: 1 },
      ),
    );
    expect(error.message).toContain('its iterations run in parallel');
  });
});
