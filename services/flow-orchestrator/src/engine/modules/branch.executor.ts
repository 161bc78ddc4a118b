import { randomUUID } from 'node:crypto';
import type {
  BranchAll,
  BranchOne,
  BranchOneBranch,
  FlowModule,
  FlowStatusModule,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { JobRecord } from '../../store/job.record.js';
import type { SqlStatement } from '../../store/sql-batch.js';
import type { ExpressionScope } from '../expressions/expression-scope.js';
import { ExpressionEvaluator } from '../expressions/expression.evaluator.js';
import {
  done,
  PARKED,
  type ChildDriver,
  type ModuleContext,
  type ModuleOutcome,
  type ModuleProgress,
} from '../module-outcome.js';
import { errorObject } from '../steps/leaf-step.runner.js';
import { BodyRunner, type BodySpec, type EndedChild } from './body-runner.js';
import { childOutcomeOf, isEnded, recordChildEnd } from './child-results.js';

/** What a module that routes adds to its outcome: status fields, `results.<id>`, writes. */
export interface ChoiceExtras {
  readonly status?: Partial<FlowStatusModule>;
  readonly namedResult?: unknown;
  readonly statements?: readonly SqlStatement[];
}

/** The branches a module chooses among, and what their exprs see. */
export interface BranchChoice extends ChoiceExtras {
  readonly branches: readonly BranchOneBranch[];
  readonly default: FlowModule[];
  readonly scope: ExpressionScope;
}

/**
 * branchone runs the modules of the first branch whose expr is true (else `default`) as one
 * child flow; its result is that flow's. branchall runs every branch (in parallel or one after
 * the other) and returns their results in order; a failed branch fails the module unless it has
 * `skip_failure`. Branch bodies see the flow's input as theirs.
 */
@Injectable()
export class BranchExecutor {
  constructor(
    private readonly evaluator: ExpressionEvaluator,
    private readonly bodies: BodyRunner,
  ) {}

  async branchOne(ctx: ModuleContext, driver: ChildDriver): Promise<ModuleProgress> {
    const value = ctx.module.value as BranchOne;
    return (
      (await this.resumeChosen(ctx, driver)) ??
      this.choose(ctx, driver, { branches: value.branches, default: value.default, scope: ctx.scope })
    );
  }

  /** The chosen branch, after a restart: undefined when none had started. */
  async resumeChosen(
    ctx: ModuleContext,
    driver: ChildDriver,
    extra: ChoiceExtras = {},
  ): Promise<ModuleProgress | undefined> {
    if (ctx.status.type !== 'InProgress' || !ctx.status.job) return undefined;
    const row = (await this.bodies.childRows([ctx.status.job])).get(ctx.status.job);
    if (!row) return undefined;
    const outcome = await this.bodies.resume(ctx, driver, row);
    if (outcome.kind === 'parked') return PARKED;
    return done(oneOutcome(outcome, ctx.status.branch_chosen, extra));
  }

  /**
   * Runs the first branch whose expr is true in `choice.scope`, else the default, as one child
   * flow: a branchone's run, and a routing aidecision's once its answers are in.
   */
  async choose(ctx: ModuleContext, driver: ChildDriver, choice: BranchChoice): Promise<ModuleProgress> {
    let chosen: { type: 'branch'; branch: number } | { type: 'default' } = { type: 'default' };
    try {
      for (const [index, branch] of choice.branches.entries()) {
        const path = `${ctx.fieldPath}.value.branches[${index}].expr`;
        if (await this.evaluator.predicate(branch.expr, choice.scope, path)) {
          chosen = { type: 'branch', branch: index };
          break;
        }
      }
    } catch (error) {
      return done({
        success: false,
        result: { error: errorObject(error) },
        status: { ...choice.status },
        statements: [...(choice.statements ?? [])],
      });
    }
    const modules = chosen.type === 'branch' ? choice.branches[chosen.branch].modules : choice.default;
    // An empty branch ends at once, with an empty result as Windmill's.
    if (modules.length === 0)
      return done({
        success: true,
        result: [],
        status: { ...choice.status, branch_chosen: chosen },
        statements: [...(choice.statements ?? [])],
        ...('namedResult' in choice ? { namedResult: choice.namedResult } : {}),
      });
    const { tokenJob, statements } = await this.bodies.bodyToken(ctx);
    const body: BodySpec = {
      modules,
      suffix: `branchone-${chosen.type === 'branch' ? chosen.branch + 1 : 0}`,
      args: ctx.run.flowInput,
      ...(chosen.type === 'branch'
        ? { fieldBase: `${ctx.fieldPath}.value.branches[${chosen.branch}].` }
        : { fieldBase: `${ctx.fieldPath}.value.`, modulesField: 'default' as const }),
    };
    const child = this.bodies.newChild(ctx, body, tokenJob);
    const status: FlowStatusModule = {
      type: 'InProgress',
      id: ctx.module.id,
      job: child.id,
      ...choice.status,
      branch_chosen: chosen,
    };
    const outcome = await this.bodies.startAndDrive(ctx, driver, child, status, [
      ...(choice.statements ?? []),
      ...statements,
    ]);
    if (outcome.kind === 'parked') return PARKED;
    return done(oneOutcome(outcome, chosen, { ...choice, statements: [] }));
  }

  async branchAll(ctx: ModuleContext, driver: ChildDriver): Promise<ModuleProgress> {
    const value = ctx.module.value as BranchAll;
    const count = value.branches.length;
    if (count === 0)
      return done({
        success: true,
        result: [],
        status: { branchall: { branch: 0, len: 0 } },
        statements: [],
      });
    const bodies: BodySpec[] = value.branches.map((branch, index) => ({
      modules: branch.modules,
      suffix: `branchall-${index}`,
      args: ctx.run.flowInput,
      fieldBase: `${ctx.fieldPath}.value.branches[${index}].`,
    }));
    const skips = value.branches.map((branch) => branch.skip_failure === true);
    let status = ctx.status;
    if (status.type !== 'InProgress' || !status.flow_jobs) {
      status = {
        type: 'InProgress',
        id: ctx.module.id,
        branchall: { branch: 0, len: count },
        flow_jobs: value.parallel ? bodies.map(() => randomUUID()) : [],
        flow_jobs_success: value.parallel ? bodies.map(() => false) : [],
      };
      if (value.parallel) await ctx.saveProgress(status);
    }
    return value.parallel
      ? this.parallel(ctx, driver, status, bodies, skips)
      : this.sequential(ctx, driver, status, bodies, skips);
  }

  private async parallel(
    ctx: ModuleContext,
    driver: ChildDriver,
    status: FlowStatusModule,
    bodies: BodySpec[],
    skips: boolean[],
  ): Promise<ModuleProgress> {
    const { tokenJob } = await this.bodies.bodyToken(ctx);
    const outcomes = await this.bodies.runParallel(
      ctx,
      driver,
      status,
      bodies,
      bodies.length,
      tokenJob,
      (ended) => {
        status.branchall = { branch: ended, len: bodies.length };
      },
    );
    if (outcomes.some((outcome) => outcome === undefined)) return PARKED;
    return done(allOutcome(status, outcomes as EndedChild[], skips));
  }

  private async sequential(
    ctx: ModuleContext,
    driver: ChildDriver,
    status: FlowStatusModule,
    bodies: BodySpec[],
    skips: boolean[],
  ): Promise<ModuleProgress> {
    const ids = status.flow_jobs!;
    const rows = ctx.run.ephemeral ? new Map<string, JobRecord>() : await this.bodies.childRows(ids);
    const ends: EndedChild[] = [];
    for (const [position, id] of ids.entries()) {
      const row = rows.get(id);
      if (!row) break;
      const outcome = isEnded(row)
        ? (childOutcomeOf(row) as EndedChild)
        : await this.bodies.resume(ctx, driver, row);
      if (outcome.kind === 'parked') return PARKED;
      ends[position] = outcome;
    }
    let token: string | undefined;
    for (let position = 0; position < bodies.length; position++) {
      let outcome = ends[position];
      if (!outcome) {
        let extra: SqlStatement[] = [];
        if (!token) {
          const scoped = await this.bodies.bodyToken(ctx);
          token = scoped.tokenJob;
          extra = scoped.statements;
        }
        const child = this.bodies.newChild(ctx, bodies[position], token);
        status.flow_jobs = [...(status.flow_jobs ?? []).slice(0, position), child.id];
        status.branchall = { branch: position, len: bodies.length };
        const driven = await this.bodies.startAndDrive(ctx, driver, child, status, extra);
        if (driven.kind === 'parked') return PARKED;
        outcome = driven;
        ends[position] = outcome;
      }
      recordChildEnd(status, position, outcome.record);
      if (!outcome.success && !skips[position]) return done(failed(status, ends.slice(0, position + 1)));
      if (outcome.stop) {
        if (position < bodies.length - 1) return done(stoppedBefore(status, outcome, outcome.stop));
        break;
      }
    }
    return done(allOutcome(status, ends, skips));
  }
}

/**
 * An early stop in a branch of a sequential branchall that has later branches: the flow ends
 * there with that branch's own result, not a list, as Windmill's parent does - it sees the
 * branch's stop before it would start the next branch and completes the flow with the branch's
 * result while the branchall is still in progress (worker_flow.rs, stop_early_override and
 * should_continue_flow false). A stop in the last branch completes the branchall first (157).
 */
function stoppedBefore(
  status: FlowStatusModule,
  outcome: EndedChild,
  stop: NonNullable<EndedChild['stop']>,
): ModuleOutcome {
  return {
    success: true,
    result: outcome.result,
    status: fields(status),
    statements: [],
    stopHandled: true,
    stop,
  };
}

function oneOutcome(
  outcome: EndedChild,
  chosen: FlowStatusModule['branch_chosen'],
  extra: ChoiceExtras,
): ModuleOutcome {
  return {
    success: outcome.success,
    result: outcome.result,
    status: { ...extra.status, job: outcome.record.id, branch_chosen: chosen },
    statements: [...(extra.statements ?? [])],
    ...('namedResult' in extra ? { namedResult: extra.namedResult } : {}),
    ...(outcome.stop ? { stop: outcome.stop } : {}),
  };
}

function allOutcome(status: FlowStatusModule, ends: EndedChild[], skips: boolean[]): ModuleOutcome {
  const failure = ends.find((outcome, position) => !outcome.success && !skips[position]);
  if (failure) return failed(status, ends);
  const stop = ends.find((outcome) => outcome.stop)?.stop;
  return {
    success: true,
    result: ends.map((outcome) => outcome.result),
    status: fields(status),
    statements: [],
    // Windmill evaluates no stop_after_if on a branchall (stop_after_all_iters_if still applies).
    stopHandled: true,
    ...(stop ? { stop } : {}),
  };
}

/**
 * A failed branch fails the branchall: its result is the branches' results that ran (all of them
 * when parallel; up to the failed one when sequential, which stops there), a failed one's as its
 * `{ error }`, as Windmill gives it (worker_flow.rs: the Failure status keeps the branches' jobs).
 */
function failed(status: FlowStatusModule, ends: readonly EndedChild[]): ModuleOutcome {
  return {
    success: false,
    result: ends.map((outcome) => outcome.result),
    status: fields(status),
    statements: [],
    stopHandled: true,
  };
}

function fields(status: FlowStatusModule): Partial<FlowStatusModule> {
  const { type: _type, id: _id, ...rest } = status;
  return rest;
}
