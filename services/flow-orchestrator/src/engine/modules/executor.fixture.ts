import type { FlowModule, FlowStatusModule } from '@flowmesh/contracts';
import { vi } from 'vitest';
import type { ExpressionSandbox } from '../../ports/expression-sandbox.port.js';
import type { JobRecord } from '../../store/job.record.js';
import { MemoryJobStore } from '../../store/memory-stores.fixture.js';
import type { EngineConfig } from '../engine.config.js';
import { ExpressionEvaluator } from '../expressions/expression.evaluator.js';
import { NO_RESULTS } from '../expressions/expression-scope.js';
import { FlowRun, RunTree } from '../flow-run.js';
import type { ChildDriver, ChildOutcome, ModuleContext } from '../module-outcome.js';
import { ScopedTokens } from '../scoped-token.js';
import type { LeafRun } from '../steps/leaf-step.runner.js';
import type {
  StoredWorkspaceSettings,
  WorkspaceSettingsStore,
} from '../../store/workspace-settings.store.js';
import { CancelSignals } from '../cancel-signals.js';
import { WorkspaceLimits } from '../workspace-limits.js';
import { BodyRunner } from './body-runner.js';
import { LoopGuard } from './loop-guard.js';

/**
 * What the executors of container modules (loops, branches) run on in a unit spec: the job table
 * in memory, plain expressions evaluated in the host (anything needing the sandbox fails the
 * spec), and a driver whose children end as `childEnd` says.
 */
export function containerSetup(options: {
  module: FlowModule;
  flowInput?: Record<string, unknown>;
  status?: FlowStatusModule;
  /** How each child flow ends, from its arguments (`iter` for a loop iteration). */
  childEnd?: (child: JobRecord) => { success: boolean; result: unknown } | 'parked';
}) {
  const jobs = new MemoryJobStore();
  const noSandbox: ExpressionSandbox = {
    evaluate: (expr) => Promise.reject(new Error(`the spec evaluates only plain expressions, not ${expr}`)),
  };
  const evaluator = new ExpressionEvaluator(noSandbox);
  // Without job_token_scopes, a body acts with its flow's token: no registry, no token store.
  const bodies = new BodyRunner(
    jobs,
    new ScopedTokens(undefined as never, undefined as never, SPEC_ENGINE_CONFIG),
    SPEC_ENGINE_CONFIG,
  );
  const flow = jobs.put({
    id: 'flow-1',
    workspace: 'main',
    kind: 'flow',
    path: 'f/spec/flow',
    root_job: 'flow-1',
    parent_job: null,
    tag: 'flow',
    status: 'running',
    args: options.flowInput ?? {},
    raw_flow: { modules: [options.module] },
    flow_status: { step: 0, modules: [], failure_module: { type: 'WaitingForPriorSteps', id: 'failure' } },
  } as Partial<JobRecord> as JobRecord);
  const run = new FlowRun(flow, new RunTree(flow.id), undefined, {
    get: () => Promise.resolve({ found: false, value: undefined }),
    all: () => Promise.resolve({}),
  });
  /** The statuses saved while the module ran, each as it was then. */
  const saved: FlowStatusModule[] = [];
  const ctx: ModuleContext = {
    run,
    slot: 0,
    module: options.module,
    fieldPath: 'value.modules[0]',
    status: options.status ?? { type: 'WaitingForPriorSteps', id: options.module.id },
    scope: { flowInput: run.flowInput, results: NO_RESULTS, vars: {} },
    previousResult: null,
    retryArgs: undefined,
    saveProgress: (status, statements = []) => {
      saved.push(structuredClone(status));
      return jobs.execute(statements).then(() => undefined);
    },
  };
  /** The children driven, in order: a new one as its record, one taken over by its id. */
  const driven: Array<JobRecord | string> = [];
  const end = (child: JobRecord): ChildOutcome => {
    const how = options.childEnd?.(child) ?? { success: true, result: null };
    if (how === 'parked') return { kind: 'parked' };
    const record = jobs.put({ ...child, status: how.success ? 'completed' : 'failed', result: how.result });
    return { kind: 'done', success: how.success, result: how.result, record };
  };
  const driver: ChildDriver = {
    driveChild: (_parent, child) => {
      driven.push(child);
      const record = typeof child === 'string' ? jobs.rows.get(child) : child;
      if (!record) throw new Error(`no child ${typeof child === 'string' ? child : child.id}`);
      return Promise.resolve(end(record));
    },
    driveEphemeral: (_parent, child) => {
      driven.push(child);
      return Promise.resolve(end(child));
    },
  };
  return { jobs, evaluator, bodies, run, ctx, driver, driven, saved };
}

/** An engine's settings for a spec: a worker serving the `default` tag. */
const specSettings: Partial<EngineConfig> = {
  instanceId: 'spec-worker',
  workerTags: ['default'],
  leaseTtlMs: 30_000,
  defaultTimeoutMs: 60_000,
  defaultMemoryMb: 512,
  liveAfterMs: 60_000,
  maxInlineParallelism: 4,
};
export const SPEC_ENGINE_CONFIG = specSettings as EngineConfig;

/** `LeafStepRunner.run` of a script that doubles its `x`. */
export function doublingRunner() {
  return vi.fn((job: { args: Record<string, unknown> }): Promise<LeafRun> =>
    Promise.resolve({
      success: true,
      result: (job.args.x as number) * 2,
      startedAt: new Date(),
      durationMs: 1,
      logs: undefined,
    }),
  );
}

/** The `iter` a loop gave its iteration. */
export function iterOf(child: JobRecord): { index: number; value: unknown } {
  return child.args.iter as { index: number; value: unknown };
}

/** A loop guard on the job table in memory, with the workspace's limits as given (else the defaults). */
export function specLoopGuard(
  jobs: MemoryJobStore,
  stored: Partial<StoredWorkspaceSettings> = {},
  cancels = new CancelSignals(),
): LoopGuard {
  const settings = {
    read: () => Promise.resolve({ max_loop_iterations: null, max_flow_modules: null, ...stored }),
  } as unknown as WorkspaceSettingsStore;
  return new LoopGuard(cancels, jobs, new WorkspaceLimits(settings));
}
