import { randomUUID } from 'node:crypto';
import { isTerminalJobStatus, type FlowModule, type JobKind, type ScriptLanguage } from '@flowmesh/contracts';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { JobRecord, JobRuntime } from '../../store/job.record.js';
import { JobStore } from '../../store/job.store.js';
import { ResultCacheStore } from '../../store/result-cache.store.js';
import type { SqlStatement } from '../../store/sql-batch.js';
import { JobTokens } from '../../registry/job-tokens.js';
import { RegistryGateway } from '../../registry/registry.gateway.js';
import { resultCacheKey } from '../cache/result-cache.js';
import { CancelSignals } from '../cancel-signals.js';
import { resolveKey } from '../concurrency.limiter.js';
import { childPath } from '../child-flows.js';
import { ENGINE_CONFIG, type EngineConfig } from '../engine.config.js';
import { ExpressionEvaluator } from '../expressions/expression.evaluator.js';
import { evaluateInputTransforms, evaluateTransform } from '../input-transforms.js';
import {
  done,
  PARKED,
  type ModuleContext,
  type ModuleOutcome,
  type ModuleProgress,
} from '../module-outcome.js';
import { ScopedTokens } from '../scoped-token.js';
import { errorObject, LeafStepRunner, type LeafJob } from '../steps/leaf-step.runner.js';
import { isValidTag, stepTag } from '../step-tags.js';
import { endedRecord, leafRecord } from './leaf-record.js';
import { Debouncer } from '../debouncer.js';
import { stepJobId } from '../step-job-id.js';

interface PreparedLeaf {
  readonly record: JobRecord;
  readonly statements: SqlStatement[];
  readonly cacheKey: string | undefined;
}

/**
 * Runs a step that is one job: a rawscript, a script by path (or path and hash), an identity,
 * and any step skipped (`skip_if`) or mocked. A step whose tag this process serves runs here and
 * commits with its flow's status; any other is queued for its tag and the flow parks.
 */
@Injectable()
export class LeafExecutor {
  private readonly log = new Logger(LeafExecutor.name);

  constructor(
    private readonly evaluator: ExpressionEvaluator,
    private readonly jobs: JobStore,
    private readonly runner: LeafStepRunner,
    private readonly registry: RegistryGateway,
    private readonly tokens: JobTokens,
    private readonly scopedTokens: ScopedTokens,
    private readonly cache: ResultCacheStore,
    private readonly cancels: CancelSignals,
    private readonly debouncer: Debouncer,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
  ) {}

  async run(ctx: ModuleContext, options: { entrypoint?: string } = {}): Promise<ModuleProgress> {
    const existing =
      ctx.status.type === 'InProgress' || ctx.status.type === 'WaitingForExecutor'
        ? ctx.status.job
        : undefined;
    if (existing && !ctx.run.ephemeral) {
      const row = await this.jobs.load(existing);
      if (row && isTerminalJobStatus(row.status)) return done(outcomeOf(row));
      if (row?.runtime.debounce) return this.afterDebounce(ctx, row);
      // Queued for another worker, or handed to agent-runtime: it will wake the flow.
      if (row?.runtime.dispatched) return PARKED;
    }
    // The same id however often the step runs again after a crash: its idempotency key.
    const jobId = existing ?? stepJobId(ctx.run, ctx.slot);
    const { module } = ctx;
    let bypass: ModuleOutcome | undefined;
    try {
      bypass = await this.skipOrMock(ctx, jobId);
    } catch (error) {
      return done(this.failedBeforeRun(ctx, jobId, error));
    }
    if (bypass) return done(bypass);
    if (module.value.type === 'identity') return done(this.identity(ctx, jobId, ctx.previousResult, false));

    let prepared: PreparedLeaf;
    try {
      prepared = await this.prepare(ctx, jobId, options.entrypoint);
    } catch (error) {
      return done(this.failedBeforeRun(ctx, jobId, error));
    }
    const { record, statements, cacheKey } = prepared;
    if (module.debouncing?.debounce_delay_s && !ctx.run.ephemeral) {
      const at = await this.debouncer.registerStep(ctx, record, module.debouncing, statements);
      if (at === 'replaced')
        return done({ success: true, result: null, skipped: true, status: { job: jobId }, statements: [] });
      await ctx.saveProgress({ type: 'InProgress', id: module.id, job: jobId });
      return this.afterDebounce(ctx, record, at, cacheKey);
    }
    return this.launch(ctx, record, statements, cacheKey);
  }

  /** A debounced step whose wait is over runs (with the arguments gathered from the runs it replaced). */
  private async afterDebounce(
    ctx: ModuleContext,
    row: JobRecord,
    at = row.runtime.debounce!.at,
    cacheKey?: string,
  ): Promise<ModuleProgress> {
    if (Date.now() < at) return { kind: 'parked', wakeAt: at };
    // Claimed, so that a run reaching the step now cannot replace it while it runs.
    const claimed = await this.debouncer.claimStep(row.id);
    if (!claimed)
      return done({ success: true, result: null, skipped: true, status: { job: row.id }, statements: [] });
    const record: JobRecord = { ...row, args: claimed.args, runtime: withoutDebounce(row.runtime) };
    return this.launch(ctx, record, [], cacheKey);
  }

  /** Runs the step here, or queues it for its tag and parks the flow. */
  private async launch(
    ctx: ModuleContext,
    record: JobRecord,
    statements: SqlStatement[],
    cacheKey: string | undefined,
  ): Promise<ModuleProgress> {
    const { module } = ctx;
    const jobId = record.id;
    if (cacheKey) {
      const cached = await this.cache.lookup(cacheKey);
      if (cached.hit) return done(this.ended(record, statements, { success: true, result: cached.result }));
    }
    const inline =
      ctx.run.ephemeral ||
      ctx.run.runtime.sameWorker ||
      ctx.run.value.same_worker ||
      this.config.workerTags.includes(record.tag);
    if (!inline) {
      const queued: JobRecord = { ...record, runtime: { ...record.runtime, dispatched: true } };
      await ctx.saveProgress({ type: 'InProgress', id: module.id, job: jobId }, [
        ...statements,
        this.jobs.insert(queued),
        this.jobs.dispatch(queued),
      ]);
      return PARKED;
    }
    return done(await this.runInline(ctx, record, statements, cacheKey));
  }

  private async runInline(
    ctx: ModuleContext,
    record: JobRecord,
    statements: SqlStatement[],
    cacheKey: string | undefined,
  ): Promise<ModuleOutcome> {
    // A long step shows InProgress (and exists as a job) while it runs; a quick one only ends.
    // The clock starts when the job does, not while it waits for a thread.
    let progress: NodeJS.Timeout | undefined;
    const showProgress = (startedAt: Date): void => {
      const running: JobRecord = { ...record, status: 'running', started_at: startedAt };
      ctx
        .saveProgress({ type: 'InProgress', id: ctx.module.id, job: record.id }, [
          ...statements,
          this.jobs.insert(running, { onConflictDoNothing: true }),
        ])
        .catch((error: unknown) => this.log.warn(`progress of step ${record.id}: ${String(error)}`));
    };
    const leaf = leafJobOf(record, {
      timeoutMs: this.config.defaultTimeoutMs,
      memoryMb: this.config.defaultMemoryMb,
    });
    const outcome = await this.runner.run(leaf, this.cancels.signalFor(record.root_job), () => {
      progress = setTimeout(showProgress, this.config.liveAfterMs, new Date());
    });
    clearTimeout(progress);
    const writes = [...statements];
    if (outcome.logs) writes.push(outcome.logs);
    if (cacheKey && outcome.success && ctx.module.cache_ttl) {
      writes.push(this.cache.save(cacheKey, outcome.result, ctx.module.cache_ttl));
    }
    return this.ended(record, writes, outcome);
  }

  private ended(
    record: JobRecord,
    statements: SqlStatement[],
    outcome: { success: boolean; result: unknown; startedAt?: Date; durationMs?: number; skipped?: boolean },
  ): ModuleOutcome {
    const row = endedRecord(record, {
      success: outcome.success,
      result: outcome.result,
      startedAt: outcome.startedAt ?? new Date(),
      durationMs: outcome.durationMs ?? 0,
      ...(outcome.skipped ? { skipped: true } : {}),
    });
    return {
      success: outcome.success,
      result: outcome.result,
      status: { job: record.id },
      statements: [...statements, this.jobs.insert(row, { upsert: true })],
      ...(outcome.skipped ? { skipped: true } : {}),
    };
  }

  /**
   * A mocked step returns its mock; a step whose `skip_if` is true passes its previous result
   * on, marked skipped. Both run as an identity job, whatever the module's type.
   */
  async skipOrMock(ctx: ModuleContext, jobId: string = randomUUID()): Promise<ModuleOutcome | undefined> {
    const { module } = ctx;
    if (module.mock?.enabled) return this.identity(ctx, jobId, module.mock.return_value ?? null, false);
    if (module.skip_if) {
      const skip = await this.evaluator.predicate(
        module.skip_if.expr,
        ctx.scope,
        `${ctx.fieldPath}.skip_if.expr`,
      );
      if (skip) return this.identity(ctx, jobId, ctx.previousResult, true);
    }
    return undefined;
  }

  /** An identity job: a skipped step passes its previous result on; a mocked one returns its mock. */
  private identity(ctx: ModuleContext, jobId: string, value: unknown, skipped: boolean): ModuleOutcome {
    const record = leafRecord(ctx.run, ctx.module, {
      id: jobId,
      kind: 'identity',
      tag: ctx.run.job.tag,
      path: childPath(ctx.run, ctx.module.id),
      args: { previous_result: value ?? null },
      runtime: leafRuntime(ctx),
    });
    return this.ended(record, [], { success: true, result: value ?? null, skipped });
  }

  private failedBeforeRun(ctx: ModuleContext, jobId: string, error: unknown): ModuleOutcome {
    const record = leafRecord(ctx.run, ctx.module, {
      id: jobId,
      kind: ctx.module.value.type === 'script' ? 'script' : 'flowscript',
      tag: ctx.run.job.tag,
      path: childPath(ctx.run, ctx.module.id),
      args: {},
      runtime: leafRuntime(ctx),
    });
    return this.ended(record, [], { success: false, result: { error: errorObject(error) } });
  }

  private async prepare(
    ctx: ModuleContext,
    jobId: string,
    entrypoint: string | undefined,
  ): Promise<PreparedLeaf> {
    const { run, module } = ctx;
    const value = module.value;
    const { tokenJob, statements } = await this.scopedTokens.forModule(run, module, jobId);
    let code: {
      kind: JobKind;
      language: ScriptLanguage;
      content: string;
      lock: string | null;
      path: string | null;
      hash: string | null;
    };
    if (value.type === 'rawscript') {
      code = {
        kind: 'flowscript',
        language: value.language,
        content: value.content,
        lock: value.lock ?? null,
        path: value.path ?? childPath(run, module.id),
        hash: null,
      };
    } else if (value.type === 'script') {
      const script = await this.registry.getScript(
        await this.tokens.tokenOf(tokenJob),
        run.job.workspace,
        value.path,
        value.hash,
      );
      code = {
        kind: 'script',
        language: script.language,
        content: script.content,
        lock: script.lock,
        path: script.path,
        hash: script.hash,
      };
    } else {
      throw new Error(`module type ${value.type} is not a script step`);
    }
    const tag = stepTag(run, module);
    if (!isValidTag(tag))
      throw new Error(
        `step ${module.id}: "${tag}" is not a worker tag (lowercase letters, digits, '-' or '_')`,
      );
    const args =
      ctx.retryArgs ??
      (await evaluateInputTransforms(
        this.evaluator,
        value.input_transforms,
        ctx.scope,
        `${ctx.fieldPath}.value.input_transforms`,
      ));
    const runtime: JobRuntime = {
      ...leafRuntime(ctx),
      tokenJob,
      timeoutMs: await this.timeoutMs(ctx),
      ...(entrypoint ? { entrypoint } : {}),
    };
    if (value.type === 'rawscript' && value.concurrent_limit) {
      const key = value.custom_concurrency_key
        ? await resolveKey(
            this.evaluator,
            value.custom_concurrency_key,
            run.job.workspace,
            args,
            `${ctx.fieldPath}.value.custom_concurrency_key`,
          )
        : `${run.job.workspace}/script/${code.path ?? module.id}`;
      runtime.concurrency = {
        key,
        limit: value.concurrent_limit,
        windowS: value.concurrency_time_window_s ?? 0,
      };
    }
    const record = leafRecord(run, module, { id: jobId, tag, args, runtime, ...code });
    const cacheKey = module.cache_ttl
      ? resultCacheKey([
          'step',
          run.job.workspace,
          run.job.path,
          module.id,
          code.path,
          code.hash,
          code.content,
          args,
        ])
      : undefined;
    return { record, statements, cacheKey };
  }

  private async timeoutMs(ctx: ModuleContext): Promise<number> {
    const transform = ctx.module.timeout;
    if (!transform) return this.config.defaultTimeoutMs;
    const seconds = await evaluateTransform(this.evaluator, transform, ctx.scope, `${ctx.fieldPath}.timeout`);
    if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) {
      throw new Error(
        `${ctx.fieldPath}.timeout: expected a positive number of seconds, got ${JSON.stringify(seconds)}`,
      );
    }
    return Math.round(seconds * 1000);
  }
}

function leafRuntime(ctx: ModuleContext): JobRuntime {
  const runtime: JobRuntime = { tokenJob: ctx.run.runtime.tokenJob ?? ctx.run.id };
  if (ctx.run.runtime.envJob) runtime.envJob = ctx.run.runtime.envJob;
  if (ctx.run.runtime.sameWorker || ctx.run.value.same_worker) runtime.sameWorker = true;
  if (ctx.module.delete_after_secs !== undefined) runtime.deleteAfterSecs = ctx.module.delete_after_secs;
  return runtime;
}

function withoutDebounce(runtime: JobRuntime): JobRuntime {
  const { debounce: _debounce, ...rest } = runtime;
  return rest;
}

export function outcomeOf(row: JobRecord): ModuleOutcome {
  return {
    success: row.status === 'completed',
    result: row.result ?? null,
    status: { job: row.id },
    statements: [],
    ...(row.skipped ? { skipped: true } : {}),
  };
}

/** What the runner needs of a leaf job's row. */
export function leafJobOf(record: JobRecord, defaults?: { timeoutMs: number; memoryMb: number }): LeafJob {
  return {
    id: record.id,
    workspace: record.workspace,
    rootJob: record.root_job,
    flowJob: record.parent_job,
    stepId: record.flow_step_id,
    kind: record.kind,
    language: record.language as ScriptLanguage | null,
    content: record.raw_code,
    lock: record.raw_lock,
    path: record.path,
    args: record.args,
    timeoutMs: record.runtime.timeoutMs ?? defaults?.timeoutMs ?? 900_000,
    memoryMb: record.runtime.memoryMb ?? defaults?.memoryMb ?? 1_024,
    tokenJob: record.runtime.tokenJob ?? record.root_job,
    envJob: record.runtime.envJob,
    entrypoint: record.runtime.entrypoint,
    onBehalfOf: record.on_behalf_of,
    workdirKey: record.runtime.sameWorker ? record.root_job : undefined,
    concurrency: record.runtime.concurrency,
    priority: record.priority,
  };
}

export type { FlowModule };
