import { randomUUID } from 'node:crypto';
import type { FlowModule, FlowStatusModule } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { JobRecord } from '../../store/job.record.js';
import { JobStore } from '../../store/job.store.js';
import { bodyRecord } from '../child-flows.js';
import { ENGINE_CONFIG, type EngineConfig } from '../engine.config.js';
import type { ChildDriver, ChildOutcome, ModuleContext } from '../module-outcome.js';
import { ScopedTokens } from '../scoped-token.js';
import { childOutcomeOf, forEachLimited, isEnded, recordChildEnd } from './child-results.js';
import type { LoopPacer } from './loop-guard.js';

/** One body a container runs: a loop iteration or a branch. */
export interface BodySpec {
  readonly modules: FlowModule[];
  /** `loop-3`, `forloop-3`, `branchall-1`: the body's path under the flow's. */
  readonly suffix: string;
  readonly args: Record<string, unknown>;
  /** Where the body's modules sit in the flow document (`value.modules[0].value.`). */
  readonly fieldBase: string;
  readonly modulesField?: 'modules' | 'default';
}

export type EndedChild = Extract<ChildOutcome, { kind: 'done' }>;

/**
 * Runs the bodies of loops and branches as child flow jobs, in this process: creates each
 * child with its row (so its steps commit against it), drives it, and records its end in the
 * container's status. After a restart it picks up the children that had not ended.
 */
@Injectable()
export class BodyRunner {
  constructor(
    private readonly jobs: JobStore,
    private readonly scopedTokens: ScopedTokens,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
  ) {}

  get defaultParallelism(): number {
    return this.config.maxInlineParallelism;
  }

  /** The rows of a container's children that exist (after a restart, some may not). */
  async childRows(ids: readonly string[] | undefined): Promise<Map<string, JobRecord>> {
    return this.jobs.loadMany(ids ?? []);
  }

  /** The token job the container's bodies act with (narrowed by the module's job_token_scopes). */
  async bodyToken(
    ctx: ModuleContext,
  ): Promise<{ tokenJob: string; statements: ReturnType<JobStore['insert']>[] }> {
    return this.scopedTokens.forModule(ctx.run, ctx.module);
  }

  newChild(ctx: ModuleContext, spec: BodySpec, tokenJob: string, id: string = randomUUID()): JobRecord {
    const record = bodyRecord(ctx.run, {
      id,
      module: ctx.module,
      modules: spec.modules,
      suffix: spec.suffix,
      args: spec.args,
    });
    record.runtime.tokenJob = tokenJob;
    record.runtime.fieldBase = spec.fieldBase;
    if (spec.modulesField === 'default') record.runtime.modulesField = 'default';
    return record;
  }

  /** Writes the child (leased to this process) with the container's status, then drives it. */
  async startAndDrive(
    ctx: ModuleContext,
    driver: ChildDriver,
    child: JobRecord,
    status: FlowStatusModule,
    extra: readonly ReturnType<JobStore['insert']>[] = [],
  ): Promise<ChildOutcome> {
    if (ctx.run.ephemeral) return driver.driveEphemeral(ctx.run, child);
    await ctx.saveProgress(status, [...extra, this.jobs.insert(child, { lease: this.lease() })]);
    return driver.driveChild(ctx.run, child);
  }

  /** Drives an existing child: ended, it answers at once; else this process takes it over. */
  resume(ctx: ModuleContext, driver: ChildDriver, row: JobRecord): Promise<ChildOutcome> {
    if (isEnded(row)) return Promise.resolve(childOutcomeOf(row));
    return driver.driveChild(ctx.run, row.id);
  }

  /**
   * Runs `count` bodies at once (at most `limit` together), the ids fixed in `status.flow_jobs`
   * beforehand. Each end is recorded in the status as it happens. Resolves with each body's
   * outcome, or undefined for one that parked (the container then parks).
   */
  async runParallel(
    ctx: ModuleContext,
    driver: ChildDriver,
    status: FlowStatusModule,
    bodies: readonly BodySpec[],
    limit: number,
    tokenJob: string,
    /** Called with the number of bodies ended so far, each time one ends. */
    onEnded: (ended: number) => void,
    /** A loop's: no body starts once its run was cancelled (the loop then ends with the cancel). */
    pacer?: LoopPacer,
  ): Promise<Array<EndedChild | undefined>> {
    const ids = status.flow_jobs!;
    const rows = ctx.run.ephemeral ? new Map<string, JobRecord>() : await this.childRows(ids);
    const outcomes: Array<EndedChild | undefined> = ids.map((id) => {
      const row = rows.get(id);
      return row && isEnded(row) ? (childOutcomeOf(row) as EndedChild) : undefined;
    });
    const pending = ids.map((_, position) => position).filter((position) => outcomes[position] === undefined);
    let ended = ids.length - pending.length;
    let cancelled = false;
    await forEachLimited(pending, limit, async (position) => {
      if (cancelled || (pacer && (cancelled = (await pacer.between()) !== undefined))) return;
      const existing = rows.get(ids[position]);
      let outcome: ChildOutcome;
      if (existing) {
        outcome = await this.resume(ctx, driver, existing);
      } else {
        const child = this.newChild(ctx, bodies[position], tokenJob, ids[position]);
        outcome = ctx.run.ephemeral
          ? await driver.driveEphemeral(ctx.run, child)
          : await this.insertAndDrive(ctx, driver, child);
      }
      if (outcome.kind === 'parked') return;
      outcomes[position] = outcome;
      recordChildEnd(status, position, outcome.record);
      ended += 1;
      onEnded(ended);
      await ctx.saveProgress(status);
    });
    return outcomes;
  }

  /** The one job a squashed loop commits: its iterations' results (kind identity, as it runs no code). */
  squashedRow(
    ctx: ModuleContext,
    id: string,
    result: unknown,
    success: boolean,
  ): ReturnType<JobStore['insert']> {
    const now = new Date();
    const record = {
      ...this.newChild(
        ctx,
        { modules: [], suffix: ctx.module.id, args: {}, fieldBase: `${ctx.fieldPath}.value.` },
        ctx.run.runtime.tokenJob ?? ctx.run.id,
        id,
      ),
      kind: 'identity' as const,
      raw_flow: null,
      flow_status: null,
      status: success ? ('completed' as const) : ('failed' as const),
      result,
      completed_at: now,
      duration_ms: 0,
    };
    return this.jobs.insert(record);
  }

  private async insertAndDrive(
    ctx: ModuleContext,
    driver: ChildDriver,
    child: JobRecord,
  ): Promise<ChildOutcome> {
    await this.jobs.execute([this.jobs.insert(child, { lease: this.lease() })]);
    return driver.driveChild(ctx.run, child);
  }

  private lease(): { owner: string; ttlMs: number } {
    return { owner: this.config.instanceId, ttlMs: this.config.leaseTtlMs };
  }
}
