import { randomUUID } from 'node:crypto';
import type { FlowStatusModule, ForloopFlow, WhileloopFlow } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { JobRecord } from '../../store/job.record.js';
import type { SqlStatement } from '../../store/sql-batch.js';
import { ExpressionEvaluator } from '../expressions/expression.evaluator.js';
import { withVars } from '../expressions/expression-scope.js';
import { evaluateTransform, withIter } from '../input-transforms.js';
import {
  done,
  PARKED,
  type ChildDriver,
  type ModuleContext,
  type ModuleOutcome,
  type ModuleProgress,
} from '../module-outcome.js';
import { errorObject } from '../steps/leaf-step.runner.js';
import { tooManyIterations, WorkspaceLimitError } from '../workspace-limits.js';
import { BodyRunner, type BodySpec, type EndedChild } from './body-runner.js';
import { childOutcomeOf, forEachLimited, isEnded, recordChildEnd } from './child-results.js';
import { cancelledLoop, LoopGuard, type Cancel } from './loop-guard.js';

/**
 * forloopflow and whileloopflow. Each iteration is a child flow job whose input is the flow's
 * plus `iter` ({index, value}); the loop's result is the array of iteration results (a failed
 * iteration's is null under skip_failures). A loop breaks when its stop_after_if is true for an
 * iteration's result, or when a step inside an iteration stops early.
 *
 * Between two iterations every loop looks for a cancel of its run and stops at once with it
 * (`LoopGuard`); one that runs in memory (squashed) also hands the event loop back every few
 * milliseconds, so the worker's other flows, its lease renewals and the cancel event go on. A
 * loop may run at most the workspace's `max_loop_iterations`.
 */
@Injectable()
export class LoopExecutor {
  constructor(
    private readonly evaluator: ExpressionEvaluator,
    private readonly bodies: BodyRunner,
    private readonly guard: LoopGuard,
  ) {}

  async forLoop(ctx: ModuleContext, driver: ChildDriver): Promise<ModuleProgress> {
    const loop = ctx.module.value as ForloopFlow;
    let status = ctx.status;
    if (status.type !== 'InProgress' || !status.iterator) {
      let itered: unknown[];
      try {
        itered = await this.iterator(ctx, loop);
      } catch (error) {
        return done(failure(error));
      }
      const max = await this.guard.maxIterations(ctx);
      if (itered.length > max)
        return done(
          failure(new WorkspaceLimitError(tooManyIterations(ctx.module.id, 'forloop', itered.length, max))),
        );
      if (itered.length === 0) {
        return done({
          success: true,
          result: [],
          status: { iterator: { index: 0, itered: [], itered_len: 0 }, flow_jobs: [], flow_jobs_success: [] },
          statements: [],
        });
      }
      status = {
        type: 'InProgress',
        id: ctx.module.id,
        iterator: { index: 0, itered, itered_len: itered.length },
        // A squashed loop's iterations have no job, and it saves no progress (a restart runs it again).
        flow_jobs: loop.parallel && !loop.squash ? itered.map(() => randomUUID()) : [],
        flow_jobs_success: loop.parallel && !loop.squash ? itered.map(() => false) : [],
      };
      if (loop.parallel && !loop.squash) await ctx.saveProgress(status);
    }
    const itered = status.iterator!.itered ?? [];
    if (loop.squash) return this.squashed(ctx, driver, loop, itered);
    const body = (k: number): BodySpec => ({
      modules: loop.modules,
      suffix: `${loop.parallel ? 'forloop' : 'loop'}-${k}`,
      args: withIter(ctx.run.flowInput, { index: k, value: itered[k] }),
      fieldBase: `${ctx.fieldPath}.value.`,
    });
    if (loop.parallel)
      return this.parallel(
        ctx,
        driver,
        loop,
        status,
        itered.map((_, k) => body(k)),
      );
    return this.sequential(ctx, driver, loop, status, (k) => (k < itered.length ? body(k) : undefined));
  }

  whileLoop(ctx: ModuleContext, driver: ChildDriver): Promise<ModuleProgress> {
    const loop = ctx.module.value as WhileloopFlow;
    const status: FlowStatusModule =
      ctx.status.type === 'InProgress' && ctx.status.flow_jobs
        ? ctx.status
        : {
            type: 'InProgress',
            id: ctx.module.id,
            iterator: { index: 0, itered: [] },
            flow_jobs: [],
            flow_jobs_success: [],
          };
    // The implicit iterator is the counter: iter.value equals iter.index.
    const body = (k: number): BodySpec => ({
      modules: loop.modules,
      suffix: `loop-${k}`,
      args: withIter(ctx.run.flowInput, { index: k, value: k }),
      fieldBase: `${ctx.fieldPath}.value.`,
    });
    if (loop.squash) return this.squashedWhile(ctx, driver, loop, body);
    if (loop.parallel) return this.parallelWhile(ctx, driver, loop, status, body);
    return this.sequential(ctx, driver, loop, status, body);
  }

  /**
   * A `parallel` while loop runs its iterations in waves of `parallelism` (the count is not
   * known ahead): after each wave its iterations are looked at in order, and the first that
   * stops (a step inside stopping early, or the loop's stop_after_if) or fails ends the loop.
   * The result holds the iterations up to that one; later ones of its wave ran, are in
   * `flow_jobs`, and are left out of the result.
   */
  private async parallelWhile(
    ctx: ModuleContext,
    driver: ChildDriver,
    loop: WhileloopFlow,
    status: FlowStatusModule,
    bodyAt: (k: number) => BodySpec,
  ): Promise<ModuleProgress> {
    const start = await this.parallelStart(ctx, loop);
    if ('failed' in start) return start.failed;
    const { limit, tokenJob } = start;
    const ids = status.flow_jobs!;
    const pacer = this.guard.pacer(ctx);
    const max = await this.guard.maxIterations(ctx);
    for (;;) {
      if (ids.length > 0) {
        // Runs what is left of the last wave (all of it after a restart: ended ones are read).
        const bodies = ids.map((_, k) => bodyAt(k));
        const outcomes = await this.bodies.runParallel(
          ctx,
          driver,
          status,
          bodies,
          limit,
          tokenJob,
          () => undefined,
          pacer,
        );
        const cancel = await pacer.cancelled();
        if (cancel) return done(cancelledLoop(cancel, moduleFields(status)));
        if (outcomes.some((outcome) => outcome === undefined)) return PARKED;
        status.iterator = { ...status.iterator, index: ids.length };
        const results: unknown[] = [];
        for (const outcome of outcomes as EndedChild[]) {
          results.push(resultOf(outcome, loop.skip_failures));
          if (!outcome.success && !loop.skip_failures)
            return done(this.failed(ctx, status, outcome, results));
          if (outcome.stop || (await this.stopsAfter(ctx, outcome.result, () => [...results])))
            return done(this.succeeded(ctx, status, results));
        }
      }
      if (ids.length >= max) return done(this.tooMany(ctx, ids.length, max));
      const wave = Math.min(limit, max - ids.length);
      for (let i = 0; i < wave; i++) ids.push(randomUUID());
      status.flow_jobs_success = [...(status.flow_jobs_success ?? []), ...Array<boolean>(wave).fill(false)];
      await ctx.saveProgress(status);
    }
  }

  /**
   * `squash` on a while loop: the iterations run in memory in this worker, one after the other,
   * until one stops; the loop commits once, as one job holding every result.
   */
  private async squashedWhile(
    ctx: ModuleContext,
    driver: ChildDriver,
    loop: WhileloopFlow,
    bodyAt: (k: number) => BodySpec,
  ): Promise<ModuleProgress> {
    const { tokenJob, statements } = await this.bodies.bodyToken(ctx);
    const pacer = this.guard.pacer(ctx);
    const max = await this.guard.maxIterations(ctx);
    const results: unknown[] = [];
    let failed: EndedChild | undefined;
    for (let k = 0; ; k++) {
      const cancel = await pacer.between();
      if (cancel) return done(cancelledLoop(cancel, { iterator: { index: k, itered: [] } }));
      if (k >= max) return done(this.tooMany(ctx, k, max));
      const end = (await driver.driveEphemeral(
        ctx.run,
        this.bodies.newChild(ctx, bodyAt(k), tokenJob),
      )) as EndedChild;
      results.push(resultOf(end, loop.skip_failures));
      if (!end.success && !loop.skip_failures) {
        failed = end;
        break;
      }
      if (end.stop || (await this.stopsAfter(ctx, end.result, () => [...results]))) break;
    }
    const jobId = randomUUID();
    const result = failed ? failed.result : results;
    const row = this.bodies.squashedRow(ctx, jobId, result, !failed);
    return done({
      success: !failed,
      result,
      status: { job: jobId, iterator: { index: results.length, itered: [] } },
      statements: [...statements, row],
      stopHandled: true,
    });
  }

  /**
   * What a parallel loop starts with: `parallelism` (static or an expression, else the engine's
   * default for inline children) and the token its iterations act with.
   */
  private async parallelStart(
    ctx: ModuleContext,
    loop: ForloopFlow | WhileloopFlow,
  ): Promise<{ limit: number; tokenJob: string } | { failed: ModuleProgress }> {
    let limit = this.bodies.defaultParallelism;
    if (loop.parallelism) {
      try {
        const value = await evaluateTransform(
          this.evaluator,
          loop.parallelism,
          ctx.scope,
          `${ctx.fieldPath}.value.parallelism`,
        );
        if (typeof value === 'number' && value >= 1) limit = Math.floor(value);
      } catch (error) {
        return { failed: done(failure(error)) };
      }
    }
    const { tokenJob } = await this.bodies.bodyToken(ctx);
    return { limit, tokenJob };
  }

  private async sequential(
    ctx: ModuleContext,
    driver: ChildDriver,
    loop: ForloopFlow | WhileloopFlow,
    status: FlowStatusModule,
    bodyAt: (k: number) => BodySpec | undefined,
  ): Promise<ModuleProgress> {
    const ids = status.flow_jobs!;
    const rows = ctx.run.ephemeral ? new Map<string, JobRecord>() : await this.bodies.childRows(ids);
    const results: unknown[] = ids.map((id) => {
      const row = rows.get(id);
      return row && isEnded(row)
        ? resultOf(childOutcomeOf(row) as EndedChild, loop.skip_failures)
        : undefined;
    });
    let token: string | undefined;
    const pacer = this.guard.pacer(ctx);
    const max = await this.guard.maxIterations(ctx);
    let k = ids.length - 1;
    let outcome: EndedChild | undefined;
    const last = k >= 0 ? rows.get(ids[k]) : undefined;
    if (last && isEnded(last)) {
      outcome = childOutcomeOf(last) as EndedChild;
    } else if (last) {
      const resumed = await this.bodies.resume(ctx, driver, last);
      if (resumed.kind === 'parked') return PARKED;
      outcome = resumed;
    }
    for (;;) {
      if (outcome) {
        recordChildEnd(status, k, outcome.record);
        results[k] = resultOf(outcome, loop.skip_failures);
        if (!outcome.success && !loop.skip_failures)
          return done(this.failed(ctx, status, outcome, results.slice(0, k + 1)));
        if (outcome.stop || (await this.stopsAfter(ctx, outcome.result, () => results.slice(0, k + 1))))
          break;
      }
      const body = bodyAt(k + 1);
      if (!body) break;
      const cancel = await pacer.between();
      if (cancel) return done(cancelledLoop(cancel, moduleFields(status)));
      if (k + 1 >= max) return done(this.tooMany(ctx, k + 1, max));
      k += 1;
      let extra: SqlStatement[] = [];
      if (!token) {
        const scoped = await this.bodies.bodyToken(ctx);
        token = scoped.tokenJob;
        extra = scoped.statements;
      }
      status.flow_jobs!.push(randomUUID());
      status.iterator = { ...status.iterator, index: k };
      const child = this.bodies.newChild(ctx, body, token, status.flow_jobs![k]);
      const driven = await this.bodies.startAndDrive(ctx, driver, child, status, extra);
      if (driven.kind === 'parked') return PARKED;
      outcome = driven;
    }
    return done(this.succeeded(ctx, status, results));
  }

  private async parallel(
    ctx: ModuleContext,
    driver: ChildDriver,
    loop: ForloopFlow,
    status: FlowStatusModule,
    bodies: BodySpec[],
  ): Promise<ModuleProgress> {
    const start = await this.parallelStart(ctx, loop);
    if ('failed' in start) return start.failed;
    const { limit, tokenJob } = start;
    const pacer = this.guard.pacer(ctx);
    const outcomes = await this.bodies.runParallel(
      ctx,
      driver,
      status,
      bodies,
      limit,
      tokenJob,
      (ended) => {
        status.iterator = { ...status.iterator, index: ended };
      },
      pacer,
    );
    const cancel = await pacer.cancelled();
    if (cancel) return done(cancelledLoop(cancel, moduleFields(status)));
    if (outcomes.some((outcome) => outcome === undefined)) return PARKED;
    const ends = outcomes as EndedChild[];
    const failed = ends.find((outcome) => !outcome.success);
    status.iterator = { ...status.iterator, index: bodies.length };
    const results = ends.map((outcome) => resultOf(outcome, loop.skip_failures));
    if (failed && !loop.skip_failures) return done(this.failed(ctx, status, failed, results));
    return done(this.succeeded(ctx, status, results));
  }

  /**
   * `squash`: the iterations run in memory in this worker, one after the other (or together when
   * `parallel`), without a job each; the loop commits once, as one job holding every result. A
   * restart runs the whole loop again.
   */
  private async squashed(
    ctx: ModuleContext,
    driver: ChildDriver,
    loop: ForloopFlow,
    itered: unknown[],
  ): Promise<ModuleProgress> {
    const { tokenJob, statements } = await this.bodies.bodyToken(ctx);
    const results: unknown[] = [];
    const runOne = async (k: number): Promise<EndedChild> => {
      const child = this.bodies.newChild(
        ctx,
        {
          modules: loop.modules,
          suffix: `loop-${k}`,
          args: withIter(ctx.run.flowInput, { index: k, value: itered[k] }),
          fieldBase: `${ctx.fieldPath}.value.`,
        },
        tokenJob,
      );
      return (await driver.driveEphemeral(ctx.run, child)) as EndedChild;
    };
    const pacer = this.guard.pacer(ctx);
    let cancel: Cancel | undefined;
    const ends: EndedChild[] = [];
    if (loop.parallel) {
      const start = await this.parallelStart(ctx, loop);
      if ('failed' in start) return start.failed;
      const positions = itered.map((_, k) => k);
      await forEachLimited(positions, start.limit, async (k) => {
        if (cancel || (cancel = await pacer.between())) return;
        ends[k] = await runOne(k);
      });
    } else {
      for (let k = 0; k < itered.length; k++) {
        if ((cancel = await pacer.between())) break;
        const end = await runOne(k);
        ends.push(end);
        if (!end.success && !loop.skip_failures) break;
        if (
          end.stop ||
          (await this.stopsAfter(ctx, end.result, () => ends.map((e) => resultOf(e, loop.skip_failures))))
        )
          break;
      }
    }
    if (cancel) {
      const ran = ends.filter(Boolean).length;
      return done(cancelledLoop(cancel, { iterator: { index: ran, itered_len: itered.length } }));
    }
    for (const end of ends) results.push(resultOf(end, loop.skip_failures));
    const failed = ends.find((end) => !end.success);
    const jobId = randomUUID();
    const success = !failed || loop.skip_failures;
    // Failed or not, the result is the iterations' so far, a failed one's as its `{ error }`.
    const result = results;
    const row = this.bodies.squashedRow(ctx, jobId, result, success);
    return done({
      success,
      result,
      status: { job: jobId, iterator: { index: ends.length, itered, itered_len: itered.length } },
      statements: [...statements, row],
      stopHandled: true,
    });
  }

  private async iterator(ctx: ModuleContext, loop: ForloopFlow): Promise<unknown[]> {
    // Windmill's iterator scope names the previous step's result `result` too (worker_flow.rs).
    const value = await evaluateTransform(
      this.evaluator,
      loop.iterator,
      withVars(ctx.scope, { result: ctx.previousResult }),
      `${ctx.fieldPath}.value.iterator`,
    );
    if (!Array.isArray(value)) {
      // Windmill's words (its serde error), which users match on: worker_flow.rs, tests/worker.rs.
      throw new Error(
        `${ctx.fieldPath}.value.iterator: Expected an array value in the iterator expression, found: invalid type: ${serdeKindOf(value)}, expected a sequence`,
      );
    }
    return value as unknown[];
  }

  /**
   * The loop's own stop_after_if, after one iteration: `result` is that iteration's. The results
   * so far are copied only for a loop that has the condition: copied after every iteration of
   * every loop, they made a long loop quadratic.
   */
  private async stopsAfter(ctx: ModuleContext, result: unknown, soFar: () => unknown[]): Promise<boolean> {
    const condition = ctx.module.stop_after_if;
    if (!condition) return false;
    const scope = withVars(ctx.scope, { result, previous_result: result, all_iters: soFar() });
    return this.evaluator.predicate(condition.expr, scope, `${ctx.fieldPath}.stop_after_if.expr`);
  }

  /** A loop that would run more iterations than its workspace allows fails, naming the setting. */
  private tooMany(ctx: ModuleContext, count: number, max: number): ModuleOutcome {
    const kind = ctx.module.value.type === 'forloopflow' ? 'forloop' : 'whileloop';
    return failure(new WorkspaceLimitError(tooManyIterations(ctx.module.id, kind, count, max)));
  }

  private succeeded(_ctx: ModuleContext, status: FlowStatusModule, results: unknown[]): ModuleOutcome {
    return {
      success: true,
      result: results,
      status: moduleFields(status),
      statements: [],
      stopHandled: true,
    };
  }

  /**
   * A failed iteration fails the loop. A for loop's result is then the iterations' results so far
   * (all of them for a parallel one, which runs every iteration first), the failed one's as its
   * `{ error }`, as Windmill gives it (backend/tests/worker.rs, test_iteration); a while loop's is
   * the failed iteration's own (Windmill's while loop goes on to that result, not to the array).
   */
  private failed(
    ctx: ModuleContext,
    status: FlowStatusModule,
    outcome: EndedChild,
    results: unknown[],
  ): ModuleOutcome {
    return {
      success: false,
      result: ctx.module.value.type === 'forloopflow' ? results : outcome.result,
      status: moduleFields(status),
      statements: [],
      stopHandled: true,
    };
  }
}

function resultOf(outcome: EndedChild, skipFailures: boolean): unknown {
  return !outcome.success && skipFailures ? null : outcome.result;
}

function failure(error: unknown): ModuleOutcome {
  return { success: false, result: { error: errorObject(error) }, status: {}, statements: [] };
}

function moduleFields(status: FlowStatusModule): Partial<FlowStatusModule> {
  const { type: _type, id: _id, ...fields } = status;
  return fields;
}

export { recordChildEnd };

/** How serde_json names a JSON value it did not expect (`invalid type: map, ...`). */
function serdeKindOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return `boolean \`${value}\``;
  if (typeof value === 'number')
    return Number.isInteger(value) ? `integer \`${value}\`` : `floating point \`${value}\``;
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  return 'map';
}
