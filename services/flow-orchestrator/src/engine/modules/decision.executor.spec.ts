import type { FlowModule, FlowStatusModule } from '@flowmesh/contracts';
import { describe, expect, it, vi } from 'vitest';
import type { JobStore } from '../../store/job.store.js';
import { NO_RESULTS } from '../expressions/expression-scope.js';
import type { FlowRun } from '../flow-run.js';
import { done, PARKED, type ChildDriver, type ModuleContext } from '../module-outcome.js';
import type { AgentStepExecutor } from './agent-step.executor.js';
import type { BranchExecutor } from './branch.executor.js';
import { DecisionExecutor } from './decision.executor.js';

const answers = { output: { intent: { type: 'choice', choice: 'refund' } }, model: 'jev', usage: {} };
const branches = [{ expr: "previous_result.output.intent.choice === 'refund'", modules: [] }];

function setup(module: FlowModule, status: FlowStatusModule) {
  const agents = { run: vi.fn() };
  const branchExecutor = { choose: vi.fn(), resumeChosen: vi.fn() };
  const jobs = { results: vi.fn() };
  const run = { results: new Map(), tree: { latest: new Map() } } as unknown as FlowRun;
  const ctx = {
    run,
    module,
    status,
    scope: { flowInput: {}, results: NO_RESULTS, vars: { previous_result: 'before' } },
  } as unknown as ModuleContext;
  const executor = new DecisionExecutor(
    agents as unknown as AgentStepExecutor,
    branchExecutor as unknown as BranchExecutor,
    jobs as unknown as JobStore,
  );
  return { agents, branchExecutor, jobs, run, ctx, executor, driver: {} as ChildDriver };
}

const routing = {
  id: 'd',
  value: { type: 'aidecision', input_transforms: {}, branches },
} as unknown as FlowModule;

describe('DecisionExecutor', () => {
  it('without branches or default, a decision is an agent-runtime job and nothing more', async () => {
    const plain = { id: 'd', value: { type: 'aidecision', input_transforms: {} } } as unknown as FlowModule;
    const { agents, branchExecutor, ctx, executor, driver } = setup(plain, { type: 'WaitingForPriorSteps' });
    agents.run.mockResolvedValue(
      done({ success: true, result: answers, status: { job: 'j1' }, statements: [] }),
    );
    expect(await executor.run(ctx, driver)).toEqual(
      done({ success: true, result: answers, status: { job: 'j1' }, statements: [] }),
    );
    expect(branchExecutor.choose).not.toHaveBeenCalled();
  });

  it('waits for its answers, then chooses with previous_result as them, results.<id> set first', async () => {
    const { agents, branchExecutor, run, ctx, executor, driver } = setup(routing, {
      type: 'WaitingForPriorSteps',
    });
    agents.run.mockResolvedValueOnce(PARKED);
    expect(await executor.run(ctx, driver)).toBe(PARKED);
    expect(branchExecutor.choose).not.toHaveBeenCalled();

    agents.run.mockResolvedValueOnce(
      done({ success: true, result: answers, status: { job: 'j1' }, statements: [] }),
    );
    branchExecutor.choose.mockResolvedValue(PARKED);
    await executor.run(ctx, driver);
    const [, , choice] = branchExecutor.choose.mock.calls[0] as [unknown, unknown, Record<string, unknown>];
    expect(choice).toMatchObject({
      branches,
      default: [],
      status: { decision_job: 'j1' },
      namedResult: answers,
      scope: { vars: { previous_result: answers } },
    });
    expect([run.results.get('d'), run.tree.latest.get('d')]).toEqual([answers, answers]);
  });

  it('a failed decision fails the step without choosing', async () => {
    const { agents, branchExecutor, ctx, executor, driver } = setup(routing, {
      type: 'WaitingForPriorSteps',
    });
    const failed = done({ success: false, result: { error: {} }, status: { job: 'j1' }, statements: [] });
    agents.run.mockResolvedValue(failed);
    expect(await executor.run(ctx, driver)).toBe(failed);
    expect(branchExecutor.choose).not.toHaveBeenCalled();
  });

  it('after a restart with the branch started, reads the answers from the decision job and resumes the branch', async () => {
    const { agents, branchExecutor, jobs, ctx, executor, driver } = setup(routing, {
      type: 'InProgress',
      id: 'd',
      job: 'branch-job',
      decision_job: 'j1',
      branch_chosen: { type: 'branch', branch: 0 },
    });
    jobs.results.mockResolvedValue([{ result: answers }]);
    const resumed = done({ success: true, result: 'handled', status: {}, statements: [] });
    branchExecutor.resumeChosen.mockResolvedValue(resumed);
    expect(await executor.run(ctx, driver)).toBe(resumed);
    expect(agents.run).not.toHaveBeenCalled();
    expect(jobs.results).toHaveBeenCalledWith(['j1']);
    expect(branchExecutor.resumeChosen.mock.calls[0]?.[2]).toMatchObject({
      status: { decision_job: 'j1' },
      namedResult: answers,
    });
  });
});
