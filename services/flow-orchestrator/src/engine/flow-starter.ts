import { FlowEnvResolver } from './steps/flow-env.resolver.js';
import { jobEvents } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { Debouncer } from './debouncer.js';
import { JobStore } from '../store/job.store.js';
import { ResultCacheStore } from '../store/result-cache.store.js';
import type { SqlStatement } from '../store/sql-batch.js';
import { resultCacheKey, stableJson } from './cache/result-cache.js';
import { ConcurrencyLimiter } from './concurrency.limiter.js';
import { ExpressionEvaluator } from './expressions/expression.evaluator.js';
import { FlowCompletion } from './flow-completion.js';
import { FlowStateStore } from './flow-state.store.js';
import type { FlowRun } from './flow-run.js';
import { FlowMetrics } from '../telemetry/flow.metrics.js';
import { moduleStatus } from './flow-status.util.js';
import { LeafExecutor } from './modules/leaf.executor.js';
import { errorObject } from './steps/leaf-step.runner.js';

/** How long a run over its concurrency limit waits before looking again (a run ending wakes it sooner). */
const CONCURRENCY_RECHECK_MS = 1_000;

/**
 * A flow job's first moves: its concurrency slot, `running`, the preprocessor of a triggered
 * run, `skip_expr` and the flow result cache.
 */
@Injectable()
export class FlowStarter {
  constructor(
    private readonly jobs: JobStore,
    private readonly store: FlowStateStore,
    private readonly concurrency: ConcurrencyLimiter,
    private readonly evaluator: ExpressionEvaluator,
    private readonly cache: ResultCacheStore,
    private readonly completion: FlowCompletion,
    private readonly leaf: LeafExecutor,
    private readonly debouncer: Debouncer,
    private readonly flowEnv: FlowEnvResolver,
    private readonly metrics: FlowMetrics,
  ) {}

  async start(run: FlowRun): Promise<'continue' | 'parked'> {
    if (run.ephemeral) return 'continue';
    if (run.job.status === 'queued') {
      if (run.value.concurrent_limit && run.job.parent_job === null) {
        const key = run.runtime.concurrencyKey ?? (await this.concurrency.key(run));
        run.runtime.concurrencyKey = key;
        if (!(await this.concurrency.tryAcquire(run, key))) {
          await this.store.save(run, [], { wake_at: new Date(Date.now() + CONCURRENCY_RECHECK_MS) });
          return 'parked';
        }
      }
      // A debounced run leaves its batch before it does anything (a replaced one has ended).
      if (run.runtime.debounceKey && !(await this.debouncer.claim(run.id))) return 'parked';
      const now = new Date();
      run.job.status = 'running';
      run.job.started_at = now;
      const statements: SqlStatement[] = [];
      if (run.job.parent_job === null) {
        this.metrics.flowStarted(run.job.kind);
        statements.push(
          this.jobs.event(
            jobEvents.started,
            {
              job_id: run.id,
              workspace: run.job.workspace,
              root_job: run.job.root_job,
              parent_job: null,
              kind: run.job.kind,
              path: run.job.path,
              tag: run.job.tag,
              started_at: now.toISOString(),
            },
            `started:${run.id}`,
          ),
        );
      }
      // Written with the first step's commit: a flow's start costs no round trip of its own.
      this.store.defer(run, statements, { status: 'running', started_at: now, wake_at: null });
    }
    if (
      run.runtime.applyPreprocessor &&
      run.value.preprocessor_module &&
      run.status.preprocessor_module?.type !== 'Success'
    ) {
      if ((await this.preprocess(run)) === 'parked') return 'parked';
    }
    if (!run.runtime.startChecked && run.status.step === 0 && !run.ending) {
      await this.startChecks(run);
    }
    return 'continue';
  }

  /** The preprocessor's result becomes the flow's input (an object as is, anything else as `{ value }`). */
  private async preprocess(run: FlowRun): Promise<'continue' | 'parked'> {
    const module = run.value.preprocessor_module!;
    const status = run.status.preprocessor_module ?? { type: 'WaitingForPriorSteps' as const, id: module.id };
    const progress = await this.leaf.run(
      {
        run,
        slot: 'preprocessor',
        module,
        fieldPath: `${run.fieldBase}preprocessor_module`,
        status,
        scope: run.scope({ previous_result: run.flowInput }),
        previousResult: run.flowInput,
        retryArgs: run.flowInput,
        saveProgress: async (progressStatus, statements = []) => {
          run.status.preprocessor_module = progressStatus;
          await this.store.save(run, statements);
        },
      },
      { entrypoint: 'preprocessor' },
    );
    if (progress.kind === 'parked') return 'parked';
    const { outcome } = progress;
    run.status.preprocessor_module = moduleStatus({
      ...outcome.status,
      type: outcome.success ? 'Success' : 'Failure',
      id: module.id,
    });
    if (!outcome.success) {
      this.completion.fail(run, module.id, outcome.result);
      await this.store.save(run, [...outcome.statements]);
      return 'continue';
    }
    const result = outcome.result;
    const args =
      result !== null && typeof result === 'object' && !Array.isArray(result)
        ? (result as Record<string, unknown>)
        : result === null
          ? {}
          : { value: result };
    run.job.args = args;
    await this.store.save(run, [...outcome.statements], { args });
    return 'continue';
  }

  private async startChecks(run: FlowRun): Promise<void> {
    run.runtime.startChecked = true;
    if (run.value.skip_expr) {
      try {
        const skip = await this.evaluator.predicate(
          run.value.skip_expr,
          run.scope(await this.flowEnv.varsOf(run.runtime, run.id)),
          `${run.fieldBase}skip_expr`,
        );
        if (skip) {
          // As Windmill: the run ends at once, successful and skipped.
          run.ending = { success: true, result: 'stopped early', skipped: true };
          return;
        }
      } catch (error) {
        run.ending = { success: false, result: { error: errorObject(error) }, skipped: false };
        return;
      }
    }
    if (run.value.cache_ttl && run.job.parent_job === null) {
      const key = resultCacheKey([
        'flow',
        run.job.workspace,
        run.job.path ?? stableJson(run.value),
        run.flowInput,
      ]);
      run.runtime.cacheKey = key;
      run.runtime.cacheTtlS = run.value.cache_ttl;
      const cached = await this.cache.lookup(key);
      if (cached.hit) run.ending = { success: true, result: cached.result, skipped: false };
    }
  }
}
