import type { FlowModule, FlowStatusModule } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../store/job.record.js';
import type { ModuleOutcome, ModuleProgress } from '../module-outcome.js';
import { BranchExecutor } from './branch.executor.js';
import { containerSetup } from './executor.fixture.js';

const step = (id: string) => ({ id, value: { type: 'identity' } });

function branchOne(): FlowModule {
  return {
    id: 'route',
    value: {
      type: 'branchone',
      branches: [
        { expr: 'flow_input.first', modules: [step('a')] },
        { expr: 'flow_input.second', modules: [step('b')] },
        { expr: 'flow_input.empty', modules: [] },
      ],
      default: [step('fallback')],
    },
  } as unknown as FlowModule;
}

function branchAll(fields: Record<string, unknown> = {}): FlowModule {
  return {
    id: 'all',
    value: {
      type: 'branchall',
      branches: [
        { modules: [step('a')] },
        { modules: [step('b')], skip_failure: true },
        { modules: [step('c')] },
      ],
      ...fields,
    },
  } as unknown as FlowModule;
}

function setup(module: FlowModule, options: Omit<Parameters<typeof containerSetup>[0], 'module'> = {}) {
  const setup = containerSetup({ module, ...options });
  return { ...setup, branches: new BranchExecutor(setup.evaluator, setup.bodies) };
}

function outcomeOf(progress: ModuleProgress): ModuleOutcome {
  if (progress.kind !== 'done') throw new Error('the branch parked');
  return progress.outcome;
}

/** The id of the first module a child flow runs: which branch it is. */
const firstStep = (child: JobRecord) => (child.raw_flow as { modules: Array<{ id: string }> }).modules[0]?.id;

describe('BranchExecutor (in-memory job store)', () => {
  it('branchone runs the first branch whose expr is true, as one child with the flow input; its result is the branch', async () => {
    const { branches, ctx, driver, driven } = setup(branchOne(), {
      flowInput: { first: false, second: true },
      childEnd: (child) => ({ success: true, result: `ran ${firstStep(child)}` }),
    });
    const outcome = outcomeOf(await branches.branchOne(ctx, driver));
    expect(outcome).toMatchObject({
      success: true,
      result: 'ran b',
      status: { branch_chosen: { type: 'branch', branch: 1 } },
    });
    const [child] = driven as JobRecord[];
    expect(driven).toHaveLength(1);
    expect(child.args).toEqual({ first: false, second: true });
    expect(outcome.status.job).toBe(child.id);
  });

  it('branchone runs the default when no expr is true', async () => {
    const { branches, ctx, driver, driven } = setup(branchOne(), {
      flowInput: {},
      childEnd: (child) => ({ success: true, result: `ran ${firstStep(child)}` }),
    });
    const outcome = outcomeOf(await branches.branchOne(ctx, driver));
    expect(outcome).toMatchObject({ result: 'ran fallback', status: { branch_chosen: { type: 'default' } } });
    expect(driven).toHaveLength(1);
  });

  it('an empty branch ends at once with an empty result and no child', async () => {
    const { branches, ctx, driver, driven, jobs } = setup(branchOne(), { flowInput: { empty: true } });
    const outcome = outcomeOf(await branches.branchOne(ctx, driver));
    expect(outcome).toMatchObject({
      success: true,
      result: [],
      status: { branch_chosen: { type: 'branch', branch: 2 } },
    });
    expect(driven).toEqual([]);
    expect(jobs.executed).toEqual([]);
  });

  it('after a restart, branchone answers from the chosen branch that ended instead of choosing again', async () => {
    const status: FlowStatusModule = {
      type: 'InProgress',
      id: 'route',
      job: 'chosen-before',
      branch_chosen: { type: 'branch', branch: 0 },
    };
    const { branches, ctx, driver, driven, jobs } = setup(branchOne(), {
      flowInput: { second: true },
      status,
    });
    jobs.put({ id: 'chosen-before', status: 'completed', result: 'from before' });
    const outcome = outcomeOf(await branches.branchOne(ctx, driver));
    expect(outcome).toMatchObject({
      result: 'from before',
      status: { branch_chosen: { type: 'branch', branch: 0 } },
    });
    expect(driven).toEqual([]);
  });

  it('a sequential branchall runs every branch in order and returns their results; a skip_failure branch does not fail it', async () => {
    const { branches, ctx, driver, driven } = setup(branchAll(), {
      childEnd: (child) =>
        firstStep(child) === 'b'
          ? { success: false, result: { error: 'b failed' } }
          : { success: true, result: firstStep(child) },
    });
    const outcome = outcomeOf(await branches.branchAll(ctx, driver));
    expect(outcome).toMatchObject({ success: true, result: ['a', { error: 'b failed' }, 'c'] });
    expect((driven as JobRecord[]).map(firstStep)).toEqual(['a', 'b', 'c']);
    expect(outcome.status.flow_jobs_success).toEqual([true, false, true]);
  });

  it('a failed branch without skip_failure stops a sequential branchall there and fails it', async () => {
    const { branches, ctx, driver, driven } = setup(branchAll(), {
      childEnd: (child) =>
        firstStep(child) === 'a'
          ? { success: false, result: { error: 'a failed' } }
          : { success: true, result: 1 },
    });
    const outcome = outcomeOf(await branches.branchAll(ctx, driver));
    expect(outcome).toMatchObject({ success: false, result: [{ error: 'a failed' }] });
    expect(driven).toHaveLength(1);
  });

  it('a parallel branchall fixes its children first and keeps the branches order in its result', async () => {
    const { branches, ctx, driver, saved } = setup(branchAll({ parallel: true }), {
      childEnd: (child) => ({ success: true, result: firstStep(child) }),
    });
    const outcome = outcomeOf(await branches.branchAll(ctx, driver));
    expect(outcome).toMatchObject({ success: true, result: ['a', 'b', 'c'] });
    expect(saved[0].flow_jobs).toHaveLength(3);
    expect(outcome.status.flow_jobs).toEqual(saved[0].flow_jobs);
  });
});
