import { randomUUID } from 'node:crypto';
import type { FlowModule } from '@flowmesh/contracts';
import { describe, expect, it, vi } from 'vitest';
import type { ExpressionSandbox } from '../ports/expression-sandbox.port.js';
import type { JobTokens } from '../registry/job-tokens.js';
import type { RegistryGateway } from '../registry/registry.gateway.js';
import type { ConcurrencySlotStore } from '../store/concurrency-slot.store.js';
import type { JobRecord } from '../store/job.record.js';
import {
  MemoryJobStore,
  MemoryLeaseStore,
  MemoryResultCacheStore,
  MemoryResumeStore,
} from '../store/memory-stores.fixture.js';
import type { SqlStatement } from '../store/sql-batch.js';
import type { WriteGroups } from '../store/write-groups.js';
import { FlowMetrics } from '../telemetry/flow.metrics.js';
import { CancelSignals } from './cancel-signals.js';
import { ConcurrencyLimiter } from './concurrency.limiter.js';
import type { Debouncer } from './debouncer.js';
import type { EngineOutbox } from './engine-outbox.js';
import { ExpressionEvaluator } from './expressions/expression.evaluator.js';
import { ExpressionItems } from './expressions/expression-items.js';
import { FlowCompletion } from './flow-completion.js';
import { FlowDriver } from './flow-driver.js';
import { FlowFinisher } from './flow-finisher.js';
import { FlowStarter } from './flow-starter.js';
import { FlowStateStore } from './flow-state.store.js';
import { initialFlowStatus } from './flow-status.util.js';
import { ApprovalGate } from './gates/approval.gate.js';
import { SleepGate } from './gates/sleep.gate.js';
import { LocalClaims } from './local-claims.js';
import { ModuleResults } from './module-results.js';
import type { AgentStepExecutor } from './modules/agent-step.executor.js';
import { BodyRunner } from './modules/body-runner.js';
import { BranchExecutor } from './modules/branch.executor.js';
import type { DecisionExecutor } from './modules/decision.executor.js';
import { LeafExecutor } from './modules/leaf.executor.js';
import { doublingRunner, SPEC_ENGINE_CONFIG, specLoopGuard } from './modules/executor.fixture.js';
import { LoopExecutor } from './modules/loop.executor.js';
import type { SubflowExecutor } from './modules/subflow.executor.js';
import { ScopedTokens } from './scoped-token.js';
import type { StepEventPublisher } from './step-events.publisher.js';
import { FlowEnvResolver } from './steps/flow-env.resolver.js';
import type { LeafStepRunner } from './steps/leaf-step.runner.js';

const config = SPEC_ENGINE_CONFIG;

/** A step doubling `x`, on `tag`. */
function double(id: string, x: string, tag?: string): FlowModule {
  return {
    id,
    value: {
      type: 'rawscript',
      language: 'bun',
      content: 'export function main(x: number) { return x * 2 }',
      input_transforms: { x: { type: 'javascript', expr: x } },
      ...(tag ? { tag } : {}),
    },
  } as unknown as FlowModule;
}

/**
 * The flow driver with every collaborator real except the edges: stores in memory, scripts run
 * by a stub doubling their `x`, no sandbox (plain expressions only), no NATS.
 */
function setup() {
  const jobs = new MemoryJobStore();
  const leases = new MemoryLeaseStore(jobs);
  const cache = new MemoryResultCacheStore();
  const outbox = { afterCommit: vi.fn(), wake: vi.fn() } as unknown as EngineOutbox;
  const groups = { write: (write) => jobs.execute(write.statements) } as WriteGroups;
  const noSandbox: ExpressionSandbox = {
    evaluate: (expr) => Promise.reject(new Error(`the spec evaluates only plain expressions, not ${expr}`)),
  };
  const evaluator = new ExpressionEvaluator(noSandbox);
  const registry = undefined as unknown as RegistryGateway;
  const tokens = undefined as unknown as JobTokens;
  const scopedTokens = new ScopedTokens(registry, tokens, config);
  const metrics = new FlowMetrics();
  const store = new FlowStateStore(jobs, groups, outbox);
  const flowEnv = new FlowEnvResolver(jobs, registry, tokens);
  const sleeps = new SleepGate(evaluator, store, jobs);
  const events = { stepCompleted: vi.fn() } as unknown as StepEventPublisher;
  const completion = new FlowCompletion(evaluator, store, sleeps, jobs, events, flowEnv, metrics);
  const concurrency = new ConcurrencyLimiter(undefined as unknown as ConcurrencySlotStore, evaluator);
  const run = doublingRunner();
  const leaf = new LeafExecutor(
    evaluator,
    jobs,
    { run } as unknown as LeafStepRunner,
    registry,
    tokens,
    scopedTokens,
    cache,
    new CancelSignals(),
    undefined as unknown as Debouncer,
    config,
  );
  const bodies = new BodyRunner(jobs, scopedTokens, config);
  const driver = new FlowDriver(
    new LocalClaims(),
    jobs,
    leases,
    store,
    new FlowStarter(
      jobs,
      store,
      concurrency,
      evaluator,
      cache,
      completion,
      leaf,
      undefined as unknown as Debouncer,
      flowEnv,
      metrics,
    ),
    completion,
    new FlowFinisher(jobs, cache, concurrency, outbox, new CancelSignals(), store, groups, metrics),
    new ModuleResults(jobs),
    new ApprovalGate(new MemoryResumeStore()),
    sleeps,
    flowEnv,
    metrics,
    leaf,
    new LoopExecutor(evaluator, bodies, specLoopGuard(jobs)),
    new BranchExecutor(evaluator, bodies),
    undefined as unknown as SubflowExecutor,
    undefined as unknown as AgentStepExecutor,
    undefined as unknown as DecisionExecutor,
    new ExpressionItems(registry, tokens),
    outbox,
    config,
  );
  const flow = (id: string, modules: FlowModule[], status: JobRecord['status'] = 'queued'): JobRecord => {
    const value = { modules };
    return jobs.put({
      id,
      workspace: 'main',
      kind: 'flow',
      path: 'f/spec/flow',
      root_job: id,
      parent_job: null,
      tag: 'flow',
      status,
      args: { x: 21 },
      raw_flow: value,
      flow_status: initialFlowStatus(value),
      created_by: 'u/spec',
      on_behalf_of: 'u/spec',
      email: 'spec@example.test',
    });
  };
  /** Every statement written, in order. */
  const written = (): SqlStatement[] => jobs.executed.flat();
  /** The statement that ended job `id`: its status and result as sent. */
  const endOf = (id: string) => {
    const end = written().find(
      (statement) => statement.sql.startsWith('UPDATE job SET status = CASE') && statement.params[0] === id,
    );
    return end && { status: end.params[1], result: JSON.parse(end.params[2] as string) as unknown };
  };
  return { jobs, leases, driver, run, flow, written, endOf };
}

describe('FlowDriver (in-memory stores)', () => {
  it('drives a flow from its work message to its end: each step runs with the result before it, the flow ends with the last', async () => {
    const { driver, run, flow, endOf, jobs, written } = setup();
    const flow1 = randomUUID();
    flow(flow1, [double('a', 'flow_input.x'), double('b', 'results.a')]);
    expect(await driver.driveFromMessage(flow1)).toBe(true);
    expect(run.mock.calls.map(([job]) => job.args)).toEqual([{ x: 21 }, { x: 42 }]);
    expect(endOf(flow1)).toEqual({ status: 'completed', result: 84 });
    const steps = [...jobs.rows.values()].filter((row) => row.parent_job === flow1);
    expect(steps.map((row) => [row.flow_step_id, row.status, row.result])).toEqual([
      ['a', 'completed', 42],
      ['b', 'completed', 84],
    ]);
    // Its end gives the lease back in the same write (no release of its own).
    expect(
      written().find(
        (statement) => statement.params[0] === flow1 && statement.sql.includes('lease_owner = NULL'),
      ),
    ).toBeDefined();
  });

  it('a step on a tag this worker does not serve is queued with its work message, and the flow parks with its lease given back', async () => {
    const { driver, run, flow, endOf, leases, jobs, written } = setup();
    const flow2 = randomUUID();
    flow(flow2, [double('a', 'flow_input.x', 'gpu')]);
    expect(await driver.driveFromMessage(flow2)).toBe(true);
    expect(run).not.toHaveBeenCalled();
    expect(endOf(flow2)).toBeUndefined();
    const queued = [...jobs.rows.values()].find((row) => row.parent_job === flow2);
    expect(queued).toMatchObject({ tag: 'gpu', status: 'queued', runtime: { dispatched: true } });
    expect(
      written()
        .map((statement) => statement.message?.subject)
        .filter(Boolean),
    ).toContain('work.gpu.job');
    expect(leases.owners.size).toBe(0);
  });

  it('a flow another process drives is left to it: its wake-up is counted for that driver and nothing runs here', async () => {
    const { driver, run, flow, leases, jobs } = setup();
    const flow3 = randomUUID();
    flow(flow3, [double('a', 'flow_input.x')]);
    leases.owners.set(flow3, 'other-worker');
    expect(await driver.driveFromMessage(flow3)).toBe(true);
    expect(jobs.rows.get(flow3)!.wake_seq).toBe(1);
    expect(run).not.toHaveBeenCalled();
  });

  it("a message for a job that is not a flow is not the driver's", async () => {
    const { driver, jobs } = setup();
    const script = randomUUID();
    jobs.put({ id: script, kind: 'script', status: 'queued' });
    expect(await driver.driveFromMessage(script)).toBe(false);
  });

  it('a flow that ended already only gives its lease back', async () => {
    const { driver, run, flow, leases, written } = setup();
    const flow4 = randomUUID();
    flow(flow4, [double('a', 'flow_input.x')], 'completed');
    expect(await driver.driveFromMessage(flow4)).toBe(true);
    expect(run).not.toHaveBeenCalled();
    expect(written()).toEqual([]);
    expect(leases.owners.size).toBe(0);
  });
});
