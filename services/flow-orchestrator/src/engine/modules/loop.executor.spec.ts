import type { FlowModule, FlowStatusModule } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../store/job.record.js';
import type { ModuleOutcome, ModuleProgress } from '../module-outcome.js';
import { containerSetup, iterOf, specLoopGuard } from './executor.fixture.js';
import { LoopExecutor } from './loop.executor.js';

function forLoop(fields: Record<string, unknown> = {}): FlowModule {
  return {
    id: 'loop',
    value: {
      type: 'forloopflow',
      iterator: { type: 'javascript', expr: 'flow_input.items' },
      modules: [],
      skip_failures: false,
      ...fields,
    },
  } as unknown as FlowModule;
}

function setup(module: FlowModule, options: Omit<Parameters<typeof containerSetup>[0], 'module'> = {}) {
  const setup = containerSetup({ module, flowInput: { items: [1, 2, 3] }, ...options });
  return { ...setup, loops: new LoopExecutor(setup.evaluator, setup.bodies, specLoopGuard(setup.jobs)) };
}

function outcomeOf(progress: ModuleProgress): ModuleOutcome {
  if (progress.kind !== 'done') throw new Error('the loop parked');
  return progress.outcome;
}

/** A sequential loop's status after a restart: its first iteration had started. */
function restartedAfter(first: string): FlowStatusModule {
  return {
    type: 'InProgress',
    id: 'loop',
    iterator: { index: 0, itered: [1, 2, 3], itered_len: 3 },
    flow_jobs: [first],
    flow_jobs_success: [false],
  };
}

const times10 = (child: JobRecord) => ({ success: true, result: (iterOf(child).value as number) * 10 });

describe('LoopExecutor (in-memory job store)', () => {
  it('a for loop runs its iterations one after the other, each a child job with its iter, and gathers their results', async () => {
    const { loops, ctx, driver, driven, jobs, saved } = setup(forLoop(), { childEnd: times10 });
    const outcome = outcomeOf(await loops.forLoop(ctx, driver));
    expect(outcome.success).toBe(true);
    expect(outcome.result).toEqual([10, 20, 30]);
    const children = driven as JobRecord[];
    expect(children.map((child) => iterOf(child))).toEqual([
      { index: 0, value: 1 },
      { index: 1, value: 2 },
      { index: 2, value: 3 },
    ]);
    expect(children.map((child) => [child.parent_job, child.kind, child.flow_step_id])).toEqual(
      children.map(() => ['flow-1', 'flowpreview', 'loop']),
    );
    // Each child's row is written with the status that names it, before it is driven.
    expect(saved.map((status) => status.flow_jobs)).toEqual([
      [children[0].id],
      [children[0].id, children[1].id],
      [children[0].id, children[1].id, children[2].id],
    ]);
    expect(jobs.executed.map((batch) => batch.map((statement) => statement.jobRow))).toEqual(
      children.map((child) => [child.id]),
    );
    expect(outcome.status.flow_jobs).toEqual(children.map((child) => child.id));
    expect(outcome.status.flow_jobs_success).toEqual([true, true, true]);
  });

  it('an iteration that fails ends the loop there: its result is the results so far, the failed one as it ended', async () => {
    const { loops, ctx, driver, driven } = setup(forLoop(), {
      childEnd: (child) =>
        iterOf(child).index === 1
          ? { success: false, result: { error: { message: 'boom' } } }
          : times10(child),
    });
    const outcome = outcomeOf(await loops.forLoop(ctx, driver));
    expect(outcome.success).toBe(false);
    expect(outcome.result).toEqual([10, { error: { message: 'boom' } }]);
    expect(driven).toHaveLength(2);
    expect(outcome.status.flow_jobs_success).toEqual([true, false]);
  });

  it('with skip_failures a failed iteration counts as null and the loop goes on', async () => {
    const { loops, ctx, driver, driven } = setup(forLoop({ skip_failures: true }), {
      childEnd: (child) =>
        iterOf(child).index === 1 ? { success: false, result: { error: {} } } : times10(child),
    });
    const outcome = outcomeOf(await loops.forLoop(ctx, driver));
    expect(outcome).toMatchObject({ success: true, result: [10, null, 30] });
    expect(driven).toHaveLength(3);
  });

  it('after a restart, iterations that ended are read from their rows, not run again', async () => {
    const first = 'iteration-0';
    const status = restartedAfter(first);
    const { loops, ctx, driver, driven, jobs } = setup(forLoop(), { status, childEnd: times10 });
    jobs.put({
      id: first,
      status: 'completed',
      result: 'from before',
      args: { iter: { index: 0, value: 1 } },
    });
    const outcome = outcomeOf(await loops.forLoop(ctx, driver));
    expect(outcome.result).toEqual(['from before', 20, 30]);
    expect((driven as JobRecord[]).map((child) => iterOf(child).index)).toEqual([1, 2]);
  });

  it('an iteration still running after a restart is taken over by its id, and the loop parks while it waits', async () => {
    const first = 'iteration-0';
    const status = restartedAfter(first);
    const { loops, ctx, driver, driven, jobs } = setup(forLoop(), { status, childEnd: () => 'parked' });
    jobs.put({ id: first, status: 'running', args: { iter: { index: 0, value: 1 } } });
    expect(await loops.forLoop(ctx, driver)).toEqual({ kind: 'parked' });
    expect(driven).toEqual([first]);
  });

  it('an empty iterator ends the loop at once with an empty result, no child written', async () => {
    const { loops, ctx, driver, driven, jobs } = setup(forLoop(), { flowInput: { items: [] } });
    const outcome = outcomeOf(await loops.forLoop(ctx, driver));
    expect(outcome).toMatchObject({ success: true, result: [] });
    expect(driven).toEqual([]);
    expect(jobs.executed).toEqual([]);
  });

  it('an iterator that is not an array fails the loop with the words Windmill users match on', async () => {
    const { loops, ctx, driver } = setup(forLoop(), { flowInput: { items: 'abc' } });
    const outcome = outcomeOf(await loops.forLoop(ctx, driver));
    expect(outcome.success).toBe(false);
    expect(JSON.stringify(outcome.result)).toContain(
      'Expected an array value in the iterator expression, found: invalid type: string \\"abc\\", expected a sequence',
    );
  });

  it('a parallel for loop fixes every iteration id first, runs them all and keeps their order', async () => {
    const { loops, ctx, driver, driven, saved } = setup(forLoop({ parallel: true, parallelism: 2 }), {
      childEnd: times10,
    });
    const outcome = outcomeOf(await loops.forLoop(ctx, driver));
    expect(outcome).toMatchObject({ success: true, result: [10, 20, 30] });
    expect(saved[0].flow_jobs).toHaveLength(3);
    expect(new Set((driven as JobRecord[]).map((child) => child.id))).toEqual(new Set(saved[0].flow_jobs));
  });

  it('squash runs the iterations in memory and commits one job holding every result', async () => {
    const { loops, ctx, driver, driven, jobs } = setup(forLoop({ squash: true }), { childEnd: times10 });
    const outcome = outcomeOf(await loops.forLoop(ctx, driver));
    expect(outcome).toMatchObject({ success: true, result: [10, 20, 30] });
    expect(driven).toHaveLength(3);
    expect(jobs.executed).toEqual([]);
    expect(outcome.statements).toHaveLength(1);
    expect(jobs.rows.get(outcome.status.job!)).toMatchObject({ kind: 'identity', result: [10, 20, 30] });
  });
});
