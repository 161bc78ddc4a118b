import type { FlowModule, FlowStatusModule } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import type { RegistryGateway } from '../../registry/registry.gateway.js';
import type { JobTokens } from '../../registry/job-tokens.js';
import { MemoryResultCacheStore } from '../../store/memory-stores.fixture.js';
import { CancelSignals } from '../cancel-signals.js';
import type { Debouncer } from '../debouncer.js';
import type { ModuleOutcome, ModuleProgress } from '../module-outcome.js';
import { ScopedTokens } from '../scoped-token.js';
import type { LeafStepRunner } from '../steps/leaf-step.runner.js';
import { containerSetup, doublingRunner, SPEC_ENGINE_CONFIG } from './executor.fixture.js';
import { LeafExecutor } from './leaf.executor.js';

function rawscript(fields: Record<string, unknown> = {}): FlowModule {
  return {
    id: 'step',
    value: {
      type: 'rawscript',
      language: 'bun',
      content: 'export function main(x: number) { return x * 2 }',
      input_transforms: { x: { type: 'javascript', expr: 'flow_input.x' } },
      ...fields,
    },
  } as unknown as FlowModule;
}

function setup(module: FlowModule, status?: FlowStatusModule) {
  const base = containerSetup({ module, flowInput: { x: 21 }, ...(status ? { status } : {}) });
  const config = SPEC_ENGINE_CONFIG;
  const run = doublingRunner();
  const cache = new MemoryResultCacheStore();
  const leaves = new LeafExecutor(
    base.evaluator,
    base.jobs,
    { run } as unknown as LeafStepRunner,
    undefined as unknown as RegistryGateway,
    undefined as unknown as JobTokens,
    new ScopedTokens(undefined as never, undefined as never, config),
    cache,
    new CancelSignals(),
    undefined as unknown as Debouncer,
    config,
  );
  return { ...base, leaves, run, cache };
}

function outcomeOf(progress: ModuleProgress): ModuleOutcome {
  if (progress.kind !== 'done') throw new Error('the step parked');
  return progress.outcome;
}

describe('LeafExecutor (in-memory stores)', () => {
  it('a step on a tag this worker serves runs here, with its input transforms; its row commits with the result', async () => {
    const { leaves, ctx, run, saved } = setup(rawscript());
    const outcome = outcomeOf(await leaves.run(ctx));
    expect(outcome).toMatchObject({ success: true, result: 42 });
    expect(run).toHaveBeenCalledTimes(1);
    expect(run.mock.calls[0][0]).toMatchObject({
      args: { x: 21 },
      language: 'bun',
      kind: 'flowscript',
      flowJob: 'flow-1',
    });
    const row = outcome.statements.at(-1)!;
    expect(row.jobRow).toBe(outcome.status.job);
    expect(row.sql).toMatch(/^INSERT INTO job .* ON CONFLICT \(id\) DO UPDATE SET status = EXCLUDED.status/s);
    expect(row.params).toContain('completed');
    expect(saved).toEqual([]);
  });

  it('a step on a tag no one here serves is queued: its row and work message commit with the status, and the flow parks', async () => {
    const { leaves, ctx, run, saved, jobs } = setup(rawscript({ tag: 'gpu' }));
    expect(await leaves.run(ctx)).toEqual({ kind: 'parked' });
    expect(run).not.toHaveBeenCalled();
    expect(saved).toHaveLength(1);
    const [batch] = jobs.executed;
    expect(batch.map((statement) => statement.message?.subject ?? statement.jobRow)).toEqual([
      saved[0].job,
      'work.gpu.job',
    ]);
    expect(jobs.rows.get(saved[0].job!)).toMatchObject({
      tag: 'gpu',
      status: 'queued',
      runtime: { dispatched: true },
    });
  });

  it('after a restart, a step whose job ended answers from its row without running again', async () => {
    const status: FlowStatusModule = { type: 'InProgress', id: 'step', job: 'step-job' };
    const { leaves, ctx, run, jobs } = setup(rawscript(), status);
    jobs.put({ id: 'step-job', status: 'failed', result: { error: { message: 'before' } } });
    expect(outcomeOf(await leaves.run(ctx))).toMatchObject({
      success: false,
      result: { error: { message: 'before' } },
      status: { job: 'step-job' },
      statements: [],
    });
    expect(run).not.toHaveBeenCalled();
  });

  it('after a restart, a step queued for another worker keeps the flow parked', async () => {
    const status: FlowStatusModule = { type: 'InProgress', id: 'step', job: 'step-job' };
    const { leaves, ctx, run, jobs } = setup(rawscript(), status);
    jobs.put({ id: 'step-job', status: 'queued', runtime: { dispatched: true } });
    expect(await leaves.run(ctx)).toEqual({ kind: 'parked' });
    expect(run).not.toHaveBeenCalled();
  });

  it('a mocked step returns its mock as an identity job, without running', async () => {
    const module = { ...rawscript(), mock: { enabled: true, return_value: { mocked: true } } } as FlowModule;
    const { leaves, ctx, run } = setup(module);
    const outcome = outcomeOf(await leaves.run(ctx));
    expect(outcome).toMatchObject({ success: true, result: { mocked: true } });
    expect(outcome.statements.at(-1)!.params).toContain('identity');
    expect(run).not.toHaveBeenCalled();
  });

  it('with cache_ttl, a result is cached with the step, and the same step with the same arguments reads it instead of running', async () => {
    const module = { ...rawscript(), cache_ttl: 60 } as FlowModule;
    const first = setup(module);
    const outcome = outcomeOf(await first.leaves.run(first.ctx));
    expect(outcome.statements.some((statement) => statement.sql.startsWith('INSERT INTO result_cache'))).toBe(
      true,
    );
    expect([...first.cache.results.values()]).toEqual([42]);

    const second = setup(module);
    for (const [key, result] of first.cache.results) second.cache.results.set(key, result);
    second.run.mockClear();
    expect(outcomeOf(await second.leaves.run(second.ctx))).toMatchObject({ success: true, result: 42 });
    expect(second.run).not.toHaveBeenCalled();
  });
});
