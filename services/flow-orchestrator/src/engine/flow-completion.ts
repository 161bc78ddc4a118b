import { faultOfResult, jobEvents, type FlowModule, type StopAfterIf } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { JobStore } from '../store/job.store.js';
import type { SqlStatement } from '../store/sql-batch.js';
import { ExpressionEvaluator } from './expressions/expression.evaluator.js';
import { FlowStateStore } from './flow-state.store.js';
import type { FlowRun } from './flow-run.js';
import { SleepGate } from './gates/sleep.gate.js';
import type { ModuleOutcome } from './module-outcome.js';
import { moduleStatus } from './flow-status.util.js';
import { retryDelayMs } from './retry.policy.js';
import { FlowMetrics } from '../telemetry/flow.metrics.js';
import { StepEventPublisher } from './step-events.publisher.js';
import { FlowEnvResolver } from './steps/flow-env.resolver.js';
import { errorObject } from './steps/leaf-step.runner.js';

/** Modules whose body may stop the flow early (a stop inside the chosen branch). */
const ROUTING_TYPES: ReadonlySet<string> = new Set(['branchone', 'branchall', 'aidecision']);

/**
 * What happens when a module ends: its stop conditions, retries, `continue_on_error`, the
 * flow's failure path and `early_return`; then one commit of the module's writes with the new
 * status.
 */
@Injectable()
export class FlowCompletion {
  constructor(
    private readonly evaluator: ExpressionEvaluator,
    private readonly store: FlowStateStore,
    private readonly sleeps: SleepGate,
    private readonly jobs: JobStore,
    private readonly events: StepEventPublisher,
    private readonly flowEnv: FlowEnvResolver,
    private readonly metrics: FlowMetrics,
  ) {}

  async complete(
    run: FlowRun,
    index: number,
    module: FlowModule,
    outcome: ModuleOutcome,
  ): Promise<'continue' | 'parked'> {
    const statements: SqlStatement[] = [...outcome.statements];
    const fieldPath = run.modulePath(index);
    if (outcome.success && module.retry?.retry_if) {
      // retry_if may ask for another attempt on a result too ("based on error or result").
      const retry = await this.retry(run, index, module, outcome, fieldPath);
      if (retry !== undefined) return this.scheduleRetry(run, index, retry, statements);
    }
    if (outcome.success) {
      let stop: StopAfterIf | undefined;
      try {
        stop = await this.stopCondition(run, module, outcome, fieldPath);
      } catch (error) {
        return this.complete(run, index, module, {
          ...outcome,
          success: false,
          result: { error: errorObject(error) },
        });
      }
      run.status.modules[index] = moduleStatus({
        ...outcome.status,
        type: 'Success',
        id: module.id,
        ...(run.status.retry?.failed_jobs?.length ? { failed_retries: run.status.retry.failed_jobs } : {}),
        ...(outcome.skipped ? { skipped: true } : {}),
      });
      delete run.status.retry;
      run.status.step = index + 1;
      this.remember(run, module.id, outcome);
      if (stop) this.stop(run, index, module, stop, outcome.result);
      else if (outcome.stop && ROUTING_TYPES.has(module.value.type)) {
        run.ending = {
          success: true,
          result: outcome.result,
          skipped: outcome.stop.skipIfStopped,
          stop: outcome.stop,
        };
      }
      await this.earlyReturn(run, module, outcome.result, statements);
    } else {
      const retry = await this.retry(run, index, module, outcome, fieldPath);
      if (retry !== undefined) return this.scheduleRetry(run, index, retry, statements);
      run.status.modules[index] = moduleStatus({
        ...outcome.status,
        type: 'Failure',
        id: module.id,
        ...(run.status.retry?.failed_jobs?.length ? { failed_retries: run.status.retry.failed_jobs } : {}),
      });
      delete run.status.retry;
      if (module.continue_on_error && index < run.modules.length - 1) {
        run.status.step = index + 1;
        this.remember(run, module.id, outcome);
      } else if (module.continue_on_error) {
        // Nothing to continue to: the flow ends failed with the error, and, as in Windmill
        // (worker_flow.rs: continue_on_error continues only to a next step), without its
        // failure module.
        run.ending = { success: false, result: failedResult(outcome.result, module.id), skipped: false };
      } else {
        this.fail(run, module.id, outcome.result);
      }
    }
    this.recordStepEnd(run, index, module, outcome);
    if (run.ending) {
      await this.store.save(run, statements);
      this.publish(run, module, outcome);
    } else {
      await this.store.saveInBackground(run, statements, () => this.publish(run, module, outcome));
    }
    return 'continue';
  }

  /**
   * The flow fails at step `stepId`: its failure module runs when it has one (and this flow is
   * not the body of a loop or branch, whose failure is its parent's), else the flow ends with
   * the error, `step_id` naming where it happened.
   */
  fail(run: FlowRun, stepId: string, result: unknown): void {
    const error = withStepId(result, stepId);
    // The failure module is given the error that failed a loop or branchall (one of its items).
    const failureModule = run.value.failure_module;
    const topLevel = run.job.kind === 'flow' || run.job.parent_job === null;
    if (failureModule && topLevel && !run.runtime.failure) {
      run.runtime.failure = { error };
      run.status.step = run.modules.length;
      run.status.failure_module = {
        type: 'WaitingForPriorSteps',
        id: failureModule.id,
        parent_module: stepId,
      };
      return;
    }
    run.ending = { success: false, result: failedResult(result, stepId), skipped: false };
  }

  /**
   * The failure module ended: the flow fails with its result, unless it returned `{ recover: true }`.
   * A failure module that failed runs again while its own `retry` allows (Windmill re-runs it).
   */
  async completeFailureModule(run: FlowRun, outcome: ModuleOutcome): Promise<'continue' | 'parked'> {
    const module = run.value.failure_module!;
    if (!outcome.success) {
      const again = await this.nextAttempt(run, module, outcome, `${run.fieldBase}failure_module`);
      if (again !== undefined) {
        run.status.failure_module = {
          type: 'WaitingForPriorSteps',
          id: module.id,
          parent_module: run.status.failure_module.parent_module,
          failed_retries: again.failedJobs,
        };
        return this.scheduleRetry(run, run.modules.length, again.delayMs, [...outcome.statements]);
      }
    }
    run.status.failure_module = moduleStatus({
      ...outcome.status,
      type: outcome.success ? 'Success' : 'Failure',
      id: run.value.failure_module!.id,
      parent_module: run.status.failure_module.parent_module,
      ...(run.status.retry?.failed_jobs?.length ? { failed_retries: run.status.retry.failed_jobs } : {}),
    });
    delete run.status.retry;
    const recovered =
      outcome.success &&
      outcome.result !== null &&
      typeof outcome.result === 'object' &&
      (outcome.result as { recover?: unknown }).recover === true;
    run.ending = { success: recovered, result: outcome.result, skipped: false };
    await this.store.save(run, [...outcome.statements]);
    return 'continue';
  }

  /** Saves a retry of module `index` (the failure module's is the modules' count), due in `delayMs`. */
  private async scheduleRetry(
    run: FlowRun,
    index: number,
    delayMs: number,
    statements: SqlStatement[],
  ): Promise<'continue' | 'parked'> {
    if (delayMs > 0) run.runtime.retry = { step: index, at: Date.now() + delayMs };
    await this.store.save(run, statements, delayMs > 0 ? { wake_at: new Date(Date.now() + delayMs) } : {});
    return delayMs > 0 ? 'parked' : 'continue';
  }

  /** The scope of the flow's own predicates (stop, retry, early return): `flow_env` and these. */
  private async scopeOf(run: FlowRun, vars: Record<string, unknown>) {
    return run.scope({ ...(await this.flowEnv.varsOf(run.runtime, run.id)), ...vars });
  }

  private remember(run: FlowRun, id: string, outcome: ModuleOutcome): void {
    const named = 'namedResult' in outcome ? outcome.namedResult : outcome.result;
    run.results.set(id, named);
    if ('namedResult' in outcome) run.stepResults.set(id, outcome.result);
    run.tree.latest.set(id, named);
  }

  private async stopCondition(
    run: FlowRun,
    module: FlowModule,
    outcome: ModuleOutcome,
    fieldPath: string,
  ): Promise<StopAfterIf | undefined> {
    const type = module.value.type;
    const aggregate = type === 'forloopflow' || type === 'whileloopflow' || type === 'branchall';
    // A stop its body already handled (a branch that stopped the flow) is not checked again.
    const stopAfterIf = outcome.stopHandled ? undefined : module.stop_after_if;
    // Most steps have no stop condition: their completion reads no flow_env.
    if (!stopAfterIf && !(aggregate && module.stop_after_all_iters_if)) return undefined;
    const scope = await this.scopeOf(run, { result: outcome.result, previous_result: outcome.result });
    if (
      stopAfterIf &&
      (await this.evaluator.predicate(stopAfterIf.expr, scope, `${fieldPath}.stop_after_if.expr`))
    ) {
      return stopAfterIf;
    }
    if (aggregate && module.stop_after_all_iters_if) {
      const condition = module.stop_after_all_iters_if;
      if (
        await this.evaluator.predicate(condition.expr, scope, `${fieldPath}.stop_after_all_iters_if.expr`)
      ) {
        return condition;
      }
    }
    return undefined;
  }

  /**
   * A stop condition fired: with `error_message` set the step fails with an EarlyStopError (the
   * default message when it is empty) and the flow takes its failure path, its failure module
   * included (worker_flow.rs: the step's status becomes Failure, and the flow goes on only to a
   * failure module); otherwise it ends with this step's result, marked skipped when
   * `skip_if_stopped`.
   */
  private stop(
    run: FlowRun,
    index: number,
    module: FlowModule,
    condition: StopAfterIf,
    result: unknown,
  ): void {
    if (condition.error_message !== undefined && condition.error_message !== null) {
      const message =
        condition.error_message === '' ? `Flow early stop: ${condition.expr}` : condition.error_message;
      const error: Record<string, unknown> = { name: 'EarlyStopError', message, step_id: module.id };
      if (condition.error_include_result) error.result = result;
      run.status.modules[index] = { ...run.status.modules[index], type: 'Failure', id: module.id };
      this.fail(run, module.id, { error });
      return;
    }
    const skipIfStopped = condition.skip_if_stopped === true;
    run.ending = { success: true, result, skipped: skipIfStopped, stop: { skipIfStopped } };
  }

  /** Milliseconds before the retry, or undefined when the step is not retried. */
  private async retry(
    run: FlowRun,
    index: number,
    module: FlowModule,
    outcome: ModuleOutcome,
    fieldPath: string,
  ): Promise<number | undefined> {
    const again = await this.nextAttempt(run, module, outcome, fieldPath);
    if (again === undefined) return undefined;
    run.status.modules[index] = {
      type: 'WaitingForPriorSteps',
      id: module.id,
      failed_retries: again.failedJobs,
    };
    return again.delayMs;
  }

  /**
   * Whether the module's `retry` runs it once more after this outcome (its attempts left, its
   * `retry_if`); if so the attempt is counted in `status.retry` and its delay returned.
   */
  private async nextAttempt(
    run: FlowRun,
    module: FlowModule,
    outcome: ModuleOutcome,
    fieldPath: string,
  ): Promise<{ delayMs: number; failedJobs: string[] } | undefined> {
    if (!module.retry) return undefined;
    const failCount = run.status.retry?.fail_count ?? 0;
    const delayMs = retryDelayMs(module.retry, failCount);
    if (delayMs === undefined) return undefined;
    if (outcome.success && !module.retry.retry_if) return undefined;
    if (module.retry.retry_if) {
      const error = outcome.success ? null : ((outcome.result as { error?: unknown } | null)?.error ?? null);
      const scope = await this.scopeOf(run, {
        result: outcome.result,
        error,
        previous_result: outcome.result,
      });
      const again = await this.evaluator
        .predicate(module.retry.retry_if.expr, scope, `${fieldPath}.retry.retry_if.expr`)
        .catch(() => false);
      if (!again) return undefined;
    }
    const failedJobs = [...(run.status.retry?.failed_jobs ?? [])];
    if (outcome.status.job) failedJobs.push(outcome.status.job);
    run.status.retry = { fail_count: failCount + 1, failed_jobs: failedJobs };
    return { delayMs, failedJobs };
  }

  /** A root flow's `early_return`: a step id whose result answers synchronous callers, or an expression. */
  private async earlyReturn(
    run: FlowRun,
    module: FlowModule,
    result: unknown,
    statements: SqlStatement[],
  ): Promise<void> {
    const early = run.value.early_return;
    if (!early || run.job.parent_job !== null || run.runtime.earlyResult) return;
    let value: unknown;
    if (early === module.id) {
      value = result;
    } else if (!run.modules.some((m) => m.id === early)) {
      const scope = await this.scopeOf(run, { result, previous_result: result });
      value = await this.evaluator.evaluate(early, scope, 'value.early_return').catch(() => undefined);
      if (value === null) value = undefined;
    }
    if (value === undefined) return;
    run.runtime.earlyResult = { value, stepId: module.id };
    statements.push(
      this.jobs.event(
        jobEvents.earlyReturned,
        {
          job_id: run.id,
          workspace: run.job.workspace,
          root_job: run.job.root_job,
          parent_job: null,
          step_id: module.id,
          at: new Date().toISOString(),
        },
        `early:${run.id}`,
      ),
    );
  }

  /** The step's end in the metrics; its start (kept in the run's state) leaves with this commit. */
  private recordStepEnd(run: FlowRun, index: number, module: FlowModule, outcome: ModuleOutcome): void {
    const started = run.runtime.stepStarted;
    const seconds = started?.step === index ? (Date.now() - started.at) / 1000 : undefined;
    if (started?.step === index) delete run.runtime.stepStarted;
    const status = !outcome.success ? 'failure' : outcome.skipped ? 'skipped' : 'success';
    this.metrics.stepFinished(module.value.type, status, seconds);
  }

  private publish(run: FlowRun, module: FlowModule, outcome: ModuleOutcome): void {
    if (run.ephemeral) return;
    const fault = outcome.success ? undefined : faultOfResult(outcome.result);
    this.events.stepCompleted({
      job_id: run.id,
      workspace: run.job.workspace,
      root_job: run.job.root_job,
      parent_job: run.job.parent_job,
      step_id: module.id,
      ...(outcome.status.job ? { step_job: outcome.status.job } : {}),
      success: outcome.success,
      skipped: outcome.skipped === true,
      ...(fault ? { fault } : {}),
      duration_ms: 0,
      completed_at: new Date().toISOString(),
    });
  }
}

/**
 * What a flow that failed at step `stepId` answers: a failed loop's or branchall's array as it is
 * (its items' results, a failed one's `{ error }`: Windmill's), else `{ error }` naming the step.
 */
export function failedResult(result: unknown, stepId: string): unknown {
  return Array.isArray(result) ? result : { error: withStepId(result, stepId) };
}

/** The error inside a failed result: its `error`, or a failed item's of an array (a loop's). */
function errorIn(result: unknown): unknown {
  if (Array.isArray(result)) {
    for (const item of result) {
      const error = errorIn(item);
      if (error !== undefined) return error;
    }
    return undefined;
  }
  return (result as { error?: unknown } | null)?.error;
}

/** A failure's error object, with the step it happened at (kept when a deeper step set it). */
export function withStepId(result: unknown, stepId: string): Record<string, unknown> {
  const error = errorIn(result);
  if (error !== null && typeof error === 'object' && !Array.isArray(error)) {
    const object = error as Record<string, unknown>;
    return object.step_id === undefined ? { ...object, step_id: stepId } : object;
  }
  return { name: 'Error', message: JSON.stringify(result) ?? 'failed', step_id: stepId };
}
