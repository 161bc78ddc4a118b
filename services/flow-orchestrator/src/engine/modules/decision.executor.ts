import type { AiDecision } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { SqlStatement } from '../../store/sql-batch.js';
import { JobStore } from '../../store/job.store.js';
import { withVars } from '../expressions/expression-scope.js';
import type { ChildDriver, ModuleContext, ModuleProgress } from '../module-outcome.js';
import { AgentStepExecutor } from './agent-step.executor.js';
import { BranchExecutor } from './branch.executor.js';

/**
 * aidecision steps. Without `branches`/`default` a decision is an agent-runtime job like an
 * aiagent step, its result the answers. With them it routes as Windmill's engine does: once the
 * decision's own job has answered, the first branch whose expr is true (`previous_result` is the
 * answers, `results.<earlier step>` still reads earlier steps) runs, else `default`; the step's
 * result is the branch's, while `results.<decision id>` stays the answers for every later step.
 * The status keeps the decision's job (`decision_job`) beside the branch's (`job`, `branch_chosen`).
 */
@Injectable()
export class DecisionExecutor {
  constructor(
    private readonly agents: AgentStepExecutor,
    private readonly branches: BranchExecutor,
    private readonly jobs: JobStore,
  ) {}

  async run(ctx: ModuleContext, driver: ChildDriver): Promise<ModuleProgress> {
    const value = ctx.module.value as AiDecision;
    if (value.branches === undefined && value.default === undefined) return this.agents.run(ctx);
    let decisionJob = ctx.status.type === 'InProgress' ? ctx.status.decision_job : undefined;
    let answers: unknown;
    let statements: readonly SqlStatement[] = [];
    if (decisionJob) {
      answers = (await this.jobs.results([decisionJob]))[0]?.result ?? null;
    } else {
      const progress = await this.agents.run(ctx);
      if (progress.kind === 'parked' || !progress.outcome.success) return progress;
      decisionJob = progress.outcome.status.job;
      answers = progress.outcome.result;
      statements = progress.outcome.statements;
    }
    // From here `results.<id>` is the answers: in the branch exprs and in the chosen branch's steps.
    ctx.run.results.set(ctx.module.id, answers);
    ctx.run.tree.latest.set(ctx.module.id, answers);
    const extras = {
      status: decisionJob ? { decision_job: decisionJob } : {},
      namedResult: answers,
      statements,
    };
    if (ctx.status.type === 'InProgress' && ctx.status.decision_job) {
      const resumed = await this.branches.resumeChosen(ctx, driver, extras);
      if (resumed) return resumed;
    }
    return this.branches.choose(ctx, driver, {
      ...extras,
      branches: value.branches ?? [],
      default: value.default ?? [],
      scope: withVars(ctx.scope, { previous_result: answers }),
    });
  }
}
