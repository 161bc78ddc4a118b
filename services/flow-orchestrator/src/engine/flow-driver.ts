import { ExpressionItems } from './expressions/expression-items.js';
import { isTerminalJobStatus, type FlowModule, type FlowStatusModule } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { JobRecord } from '../store/job.record.js';
import { JobStore } from '../store/job.store.js';
import { LeaseStore } from '../store/lease.store.js';
import { ENGINE_CONFIG, type EngineConfig } from './engine.config.js';
import { EngineOutbox } from './engine-outbox.js';
import type { ResultsReader } from './expressions/expression-scope.js';
import { FlowCompletion } from './flow-completion.js';
import { FlowFinisher, type DriveEnd } from './flow-finisher.js';
import { FlowRun, RunTree } from './flow-run.js';
import { FlowStarter } from './flow-starter.js';
import { FlowStateStore } from './flow-state.store.js';
import { LocalClaims } from './local-claims.js';
import { ApprovalGate, NO_RESUME, type ResumeVars } from './gates/approval.gate.js';
import { ModuleResults } from './module-results.js';
import {
  done,
  type ChildDriver,
  type ChildOutcome,
  type ModuleContext,
  type ModuleProgress,
  type ModuleSlot,
} from './module-outcome.js';
import { AgentStepExecutor } from './modules/agent-step.executor.js';
import { BranchExecutor } from './modules/branch.executor.js';
import { DecisionExecutor } from './modules/decision.executor.js';
import { childOutcomeOf } from './modules/child-results.js';
import { LeafExecutor } from './modules/leaf.executor.js';
import { LoopExecutor } from './modules/loop.executor.js';
import { SubflowExecutor } from './modules/subflow.executor.js';
import { SleepGate } from './gates/sleep.gate.js';
import { FlowEnvResolver } from './steps/flow-env.resolver.js';
import { errorObject } from './steps/leaf-step.runner.js';
import { ExpressionError } from '../ports/expression-sandbox.port.js';
import { JobError } from '../ports/script-runner.port.js';
import { FlowMetrics } from '../telemetry/flow.metrics.js';
import { traceStep } from './step.tracing.js';
import { HandBackError } from '@flowmesh/messaging';

type StepProgress = 'continue' | 'parked';

const PARKED_CHILD: ChildOutcome = { kind: 'parked' };

/**
 * Drives flow jobs: advances `flow_status` module by module in this process (the steps whose
 * tag it serves run here too), committing each step once with the status it produces, until the
 * flow ends or parks (approval, sleep, retry delay, a step queued for another tag). A flow job
 * is driven by one process at a time (its lease); a wake-up that races the driver makes it look
 * again before it lets go.
 */
@Injectable()
export class FlowDriver implements ChildDriver {
  constructor(
    private readonly claims: LocalClaims,
    private readonly jobs: JobStore,
    private readonly leases: LeaseStore,
    private readonly store: FlowStateStore,
    private readonly starter: FlowStarter,
    private readonly completion: FlowCompletion,
    private readonly finisher: FlowFinisher,
    private readonly results: ModuleResults,
    private readonly approvals: ApprovalGate,
    private readonly sleeps: SleepGate,
    private readonly flowEnv: FlowEnvResolver,
    private readonly metrics: FlowMetrics,
    private readonly leaf: LeafExecutor,
    private readonly loops: LoopExecutor,
    private readonly branches: BranchExecutor,
    private readonly subflows: SubflowExecutor,
    private readonly agents: AgentStepExecutor,
    private readonly decisions: DecisionExecutor,
    private readonly items: ExpressionItems,
    private readonly outbox: EngineOutbox,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
  ) {}

  /**
   * A work message for job `jobId`: when it is a flow job no one drives (here or elsewhere),
   * drives it until it ends or parks and answers true; false when it is not a flow job. Once
   * `stopping` aborts (the worker stops), the flow is handed back after the step in progress:
   * its writes landed and its lease released, it throws `HandBackError`, so the message goes to
   * another worker at once, which carries on from the next step.
   */
  async driveFromMessage(jobId: string, stopping?: AbortSignal): Promise<boolean> {
    // Driven here already: that driver looks again before it lets go. In this process, not
    // through wake_seq: its lease may be released already while it has not yet let go of the
    // claim, and a bump landing after that release would be seen by no one.
    if (!this.claims.claim(jobId)) {
      this.claims.poke(jobId);
      return true;
    }
    try {
      let flowsOnly = true;
      for (;;) {
        const record = await this.leases.acquire(jobId, this.owner, this.config.leaseTtlMs, {
          flowsOnly,
        });
        if (!record) {
          if (flowsOnly && !(await this.isFlow(jobId))) return false;
          // Driven elsewhere: that driver looks again before it parks.
          await this.bump(jobId);
          return true;
        }
        flowsOnly = false;
        if (isTerminalJobStatus(record.status)) {
          await this.leases.release(jobId, this.owner, record.wake_seq);
          return true;
        }
        const end = await this.drive(this.open(record, undefined), true, stopping);
        if (end) return true;
        if (
          (await this.leases.release(jobId, this.owner, record.wake_seq)) &&
          !this.claims.keepIfPoked(jobId)
        )
          return true;
      }
    } finally {
      this.claims.release(jobId);
    }
  }

  async driveChild(parent: FlowRun, child: JobRecord | string): Promise<ChildOutcome> {
    const id = typeof child === 'string' ? child : child.id;
    if (!this.claims.claim(id)) return PARKED_CHILD;
    try {
      let record = typeof child === 'string' ? undefined : child;
      for (;;) {
        record ??= await this.leases.acquire(id, this.owner, this.config.leaseTtlMs);
        if (!record) return PARKED_CHILD;
        if (isTerminalJobStatus(record.status)) return childOutcomeOf(record);
        const end = await this.drive(this.open(record, parent), false);
        if (end)
          return {
            kind: 'done',
            success: end.success,
            result: end.result,
            ...(end.stop ? { stop: end.stop } : {}),
            record: end.record,
          };
        if ((await this.leases.release(id, this.owner, record.wake_seq)) && !this.claims.keepIfPoked(id))
          return PARKED_CHILD;
        record = undefined;
      }
    } finally {
      this.claims.release(id);
    }
  }

  private async bump(jobId: string): Promise<void> {
    await this.jobs.countWake(jobId);
  }

  private async isFlow(jobId: string): Promise<boolean> {
    const kind = await this.jobs.kindOf(jobId);
    return kind === 'flow' || kind === 'flowpreview';
  }

  driveEphemeral(parent: FlowRun, child: JobRecord): Promise<ChildOutcome> {
    return this.driveInMemory(parent, child);
  }

  private async driveInMemory(parent: FlowRun, child: JobRecord): Promise<ChildOutcome> {
    const run = this.open(child, parent, true);
    const end = await this.drive(run, false);
    if (!end)
      throw new Error(
        `a squashed iteration of ${parent.id} cannot wait (approval, sleep or a step on another tag)`,
      );
    return {
      kind: 'done',
      success: end.success,
      result: end.result,
      ...(end.stop ? { stop: end.stop } : {}),
      record: end.record,
    };
  }

  private get owner(): string {
    return this.config.instanceId;
  }

  private open(
    record: JobRecord,
    parent: FlowRun | undefined,
    ephemeral = false,
    sharedTree?: RunTree,
  ): FlowRun {
    const tree = parent?.tree ?? sharedTree ?? new RunTree(record.root_job);
    // Driven from a message (after a restart, or woken alone): its ancestors are read, not driven.
    const ancestors =
      !parent && record.parent_job && !ephemeral ? this.ancestorReader(record.parent_job, tree) : undefined;
    const fallback: ResultsReader = {
      get: async (id) => {
        const own = await this.results.ownResult(run, id);
        if (own.found) return own;
        if (parent) return parent.reader.get(id);
        if (tree.latest.has(id)) return { found: true, value: tree.latest.get(id) };
        if (ancestors) {
          const above = await ancestors.get(id);
          if (above.found) return above;
        }
        if (ephemeral) return { found: false, value: undefined };
        const latest = await this.jobs.latestStepResult(record.root_job, id);
        return { found: latest.found, value: latest.result };
      },
      all: async () => ({
        ...(parent ? await parent.reader.all() : Object.fromEntries(tree.latest)),
        ...(await this.results.ownResults(run)),
      }),
    };
    const items = this.items.readerFor(record.workspace, record.runtime.tokenJob ?? record.id);
    const run: FlowRun = new FlowRun(record, tree, parent, fallback, ephemeral, items);
    return run;
  }

  /** Results of the flow job `id` and its own ancestors, read from their rows when first asked. */
  private ancestorReader(id: string, tree: RunTree): ResultsReader {
    let opened: Promise<FlowRun | undefined> | undefined;
    const open = () =>
      (opened ??= this.jobs
        .load(id)
        .then((record) =>
          record?.flow_status && record.raw_flow ? this.open(record, undefined, false, tree) : undefined,
        ));
    return {
      get: async (step) => {
        const ancestor = await open();
        return ancestor ? ancestor.reader.get(step) : { found: false, value: undefined };
      },
      all: async () => (await open())?.reader.all() ?? {},
    };
  }

  /** Drives until the flow ends (its end) or parks (undefined), or `stopping` hands it back. */
  private async drive(
    run: FlowRun,
    wakeParent: boolean,
    stopping?: AbortSignal,
  ): Promise<DriveEnd | undefined> {
    if (!run.cancelRequest && (await this.starter.start(run)) === 'parked') return undefined;
    for (;;) {
      if (run.writeError) throw run.writeError;
      if (run.cancelRequest && !run.ending) run.ending = this.finisher.cancelled(run);
      if (run.ending) return this.finisher.finish(run, wakeParent);
      if (stopping?.aborted && !this.holdsBackWrites(run)) return this.handBack(run);
      if ((await this.step(run, stopping)) === 'parked') {
        await run.settled();
        return undefined;
      }
    }
  }

  /** Writes kept in memory for the flow's next commit (its start goes with its first step). */
  private holdsBackWrites(run: FlowRun): boolean {
    return run.pending.statements.length > 0 || Object.keys(run.pending.fields).length > 0;
  }

  /**
   * Between two steps of a stopping worker: once the flow's writes have landed (the next driver
   * reads them), its lease goes and the message goes back (`HandBackError`: nak'ed at once).
   */
  private async handBack(run: FlowRun): Promise<never> {
    await run.settled();
    const statements = this.leases.handBack(run.id, this.owner);
    await this.jobs.execute(statements);
    this.outbox.afterCommit(statements);
    throw new HandBackError(`flow ${run.id} handed back after its step in progress: this worker is stopping`);
  }

  private async step(run: FlowRun, stopping?: AbortSignal): Promise<StepProgress> {
    const index = run.status.step;
    if (index < run.modules.length) return this.advance(run, index, stopping);
    if (run.runtime.failure) return this.runFailureModule(run);
    // Every module ran: a `suspend` on the last one still waits for its approvals.
    const gate = await this.approvals.decide(run, index);
    if (gate.kind === 'wait') return this.sleeps.parkForApproval(run, index, gate);
    if (gate.kind === 'fail') {
      this.completion.fail(run, run.modules.at(-1)?.id ?? 'approval', gate.result);
      await this.store.save(run);
      return 'continue';
    }
    run.ending = { success: true, result: await this.results.previousResult(run, index), skipped: false };
    return 'continue';
  }

  private async advance(run: FlowRun, index: number, stopping?: AbortSignal): Promise<StepProgress> {
    const module = run.modules[index];
    let status = run.status.modules[index];
    const previousResult = await this.results.previousResult(run, index);
    let resume: ResumeVars;
    if (status.type === 'WaitingForPriorSteps' || status.type === 'WaitingForEvents') {
      const gate = await this.approvals.decide(run, index);
      if (gate.kind === 'wait') return this.sleeps.parkForApproval(run, index, gate);
      if (gate.kind === 'fail') {
        run.status.modules[index] = { type: 'Failure', id: module.id };
        this.completion.fail(run, module.id, gate.result);
        await this.store.save(run, [], { status: 'running' });
        return 'continue';
      }
      resume = gate.vars;
      if (status.type === 'WaitingForEvents' || run.runtime.suspendTimeout) {
        delete run.runtime.suspendTimeout;
        status = run.status.modules[index] = { type: 'WaitingForPriorSteps', id: module.id };
        await this.store.save(run, [], { status: 'running' });
      }
      const scope = run.scope(await this.vars(run, previousResult, resume));
      const sleep = await this.sleeps.beforeStep(run, index, module, scope, run.modulePath(index));
      if (sleep === 'parked') return 'parked';
      if (sleep !== 'ok') return this.completion.complete(run, index, module, sleep);
      if (run.runtime.retry?.step === index) {
        if (Date.now() < run.runtime.retry.at) return this.sleeps.parkUntil(run, run.runtime.retry.at);
        delete run.runtime.retry;
      }
    } else {
      resume = await this.approvals.varsFor(run, index);
    }
    if (status.type === 'WaitingForPriorSteps' && run.runtime.stepStarted?.step !== index) {
      run.runtime.stepStarted = { step: index, at: Date.now() };
      this.metrics.stepStarted(module.value.type);
    }
    const ctx = await this.context(run, index, module, status, previousResult, resume);
    const progress = await traceStep(
      { jobId: run.id, workspace: run.job.workspace, stepId: module.id, stepType: module.value.type },
      () => this.execute(ctx),
    );
    // A step that failed while this worker stops may have failed of the stop (its runner closed
    // under it): not recorded, it runs again on the worker the flow goes to, as after a crash.
    if (stopping?.aborted && progress.kind !== 'parked' && !progress.outcome.success)
      return this.handBack(run);
    if (progress.kind === 'parked')
      return progress.wakeAt ? this.sleeps.parkUntil(run, progress.wakeAt) : 'parked';
    return this.completion.complete(run, index, module, progress.outcome);
  }

  private async runFailureModule(run: FlowRun): Promise<StepProgress> {
    const module = run.value.failure_module!;
    // A retry of the failure module waits out its delay first (its index: the modules' count).
    if (run.runtime.retry?.step === run.modules.length) {
      if (Date.now() < run.runtime.retry.at) return this.sleeps.parkUntil(run, run.runtime.retry.at);
      delete run.runtime.retry;
    }
    const status = run.status.failure_module;
    const error = run.runtime.failure!.error;
    const ctx = await this.context(run, 'failure', module, status, { error }, NO_RESUME, { error });
    const progress = await this.leaf.run(ctx);
    if (progress.kind === 'parked') return 'parked';
    return this.completion.completeFailureModule(run, progress.outcome);
  }

  private async context(
    run: FlowRun,
    slot: ModuleSlot,
    module: FlowModule,
    status: FlowStatusModule,
    previousResult: unknown,
    resume: ResumeVars,
    extraVars: Record<string, unknown> = {},
  ): Promise<ModuleContext> {
    const vars = { ...(await this.vars(run, previousResult, resume)), ...extraVars };
    const fieldPath = typeof slot === 'number' ? run.modulePath(slot) : `${run.fieldBase}${slot}_module`;
    return {
      run,
      slot,
      module,
      fieldPath,
      status,
      scope: run.scope(vars),
      previousResult,
      retryArgs: await this.results.retryArgs(run, module),
      saveProgress: async (progress, statements = []) => {
        if (typeof slot === 'number') run.status.modules[slot] = progress;
        else if (slot === 'failure')
          run.status.failure_module = { ...progress, parent_module: run.status.failure_module.parent_module };
        else run.status.preprocessor_module = progress;
        await this.store.save(run, statements);
      },
    };
  }

  private async vars(
    run: FlowRun,
    previousResult: unknown,
    resume: ResumeVars,
  ): Promise<Record<string, unknown>> {
    return {
      previous_result: previousResult,
      resume: resume.resume,
      resumes: resume.resumes,
      approvers: resume.approvers,
      ...(await this.flowEnv.varsOf(run.runtime, run.id)),
    };
  }

  /** Runs the module; an expression or job failure inside it is the module's failure, not the engine's. */
  private async execute(ctx: ModuleContext): Promise<ModuleProgress> {
    try {
      return await this.executeModule(ctx);
    } catch (error) {
      if (!(error instanceof ExpressionError) && !(error instanceof JobError)) throw error;
      return done({ success: false, result: { error: errorObject(error) }, status: {}, statements: [] });
    }
  }

  private async executeModule(ctx: ModuleContext): Promise<ModuleProgress> {
    const type = ctx.module.value.type;
    if (type === 'rawscript' || type === 'script' || type === 'identity') return this.leaf.run(ctx);
    const waiting = ctx.status.type === 'WaitingForPriorSteps' || ctx.status.type === 'WaitingForEvents';
    if (waiting) {
      try {
        const bypass = await this.leaf.skipOrMock(ctx);
        if (bypass) return done(bypass);
      } catch (error) {
        return done({ success: false, result: { error: errorObject(error) }, status: {}, statements: [] });
      }
    }
    switch (type) {
      case 'forloopflow':
        return this.loops.forLoop(ctx, this);
      case 'whileloopflow':
        return this.loops.whileLoop(ctx, this);
      case 'branchone':
        return this.branches.branchOne(ctx, this);
      case 'branchall':
        return this.branches.branchAll(ctx, this);
      case 'flow':
        return this.subflows.run(ctx, this);
      case 'aiagent':
        return this.agents.run(ctx);
      case 'aidecision':
        return this.decisions.run(ctx, this);
    }
  }
}
