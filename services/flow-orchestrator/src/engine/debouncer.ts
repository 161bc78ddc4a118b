import type { Debouncing, FlowValue } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { DebounceStore, type DebounceBatch, type DebounceHolder } from '../store/debounce.store.js';
import type { JobRecord } from '../store/job.record.js';
import { JobStore } from '../store/job.store.js';
import type { SqlStatement } from '../store/sql-batch.js';
import { resolveKey } from './concurrency.limiter.js';
import { EngineOutbox } from './engine-outbox.js';
import { ExpressionEvaluator } from './expressions/expression.evaluator.js';
import type { ModuleContext } from './module-outcome.js';

/** A batch of debounced runs so far: how many were replaced, since when (epoch ms). */
interface BatchSoFar {
  readonly times: number;
  readonly firstAt: number;
}

/**
 * Debouncing, of a flow's runs (`debounce_*` of the flow) and of a step across runs (the step's
 * `debouncing`). Jobs with the same key within `debounce_delay_s` collapse into one, which
 * waits the delay out (never past `max_total_debouncing_time` after the first) and carries
 * `debounce_args_to_accumulate` gathered from every job it replaced; those end at once,
 * completed and skipped. Once `max_total_debounces_amount` were debounced, the job runs at once
 * (a forced execution, as Windmill's) and the next one opens a new batch. A job takes itself out
 * of its batch when it starts (`claim`): from then on a new one of the key opens a new batch.
 */
@Injectable()
export class Debouncer {
  constructor(
    private readonly store: DebounceStore,
    private readonly jobs: JobStore,
    private readonly evaluator: ExpressionEvaluator,
    private readonly outbox: EngineOutbox,
  ) {}

  /**
   * A flow run joins its batch (with `before`): it replaces the run waiting, which ends with
   * `{ debounced_by }`, and waits (`wake_at`) or is dispatched now.
   */
  async submitFlow(record: JobRecord, value: FlowValue, before: SqlStatement[]): Promise<void> {
    const key = await resolveKey(
      this.evaluator,
      value.debounce_key ?? `$workspace/flow/${record.path ?? 'preview'}`,
      record.workspace,
      record.args,
      'value.debounce_key',
    );
    await this.store.batch(key, null, before, async (batch) => {
      const holder = await batch.holder();
      const now = Date.now();
      // A run that began (claimed when it started) is out of the batch: this one opens a new one.
      const soFar =
        holder?.status === 'queued'
          ? await takeOver(batch, holder, record, value, { debounced_by: record.id }, { clearWake: true })
          : undefined;
      const at = await schedule(batch, value, record.id, soFar ?? { times: 0, firstAt: now }, now);
      record.runtime.debounceKey = key;
      record.wake_at = at > now ? new Date(at) : null;
      const statements = [this.jobs.insert(record, { onConflictDoNothing: true })];
      if (!record.wake_at) statements.push(this.jobs.dispatch(record));
      await batch.write(statements);
    });
  }

  /**
   * Writes a debounced step's waiting job (with `before`): when it may run (epoch ms), or
   * `replaced` when a run started after this one already holds the key (this step then ended
   * skipped at once). Runs reach the step in any order; the run started last runs it.
   */
  async registerStep(
    ctx: ModuleContext,
    record: JobRecord,
    debouncing: Debouncing,
    before: readonly SqlStatement[],
  ): Promise<number | 'replaced'> {
    const flowPath = ctx.run.job.path ?? ctx.run.job.root_job;
    const key = await resolveKey(
      this.evaluator,
      debouncing.debounce_key ?? `$workspace/flow/${flowPath}-${ctx.module.id}`,
      record.workspace,
      record.args,
      `${ctx.fieldPath}.debouncing.debounce_key`,
    );
    const now = Date.now();
    const outcome = await this.store.batch(key, record.root_job, before, async (batch) => {
      const holder = await batch.holder();
      // A step that already began to run (claimed) is out of the batch: this one opens a new one.
      let pending = holder?.status === 'queued';
      if (holder && pending && holder.newer) {
        const merged = { ...holder.args };
        for (const name of debouncing.debounce_args_to_accumulate ?? [])
          merged[name] = [...asList(record.args[name]), ...asList(holder.args?.[name])];
        if (await batch.setArgs(holder.job_id, merged)) {
          const ended = {
            ...record,
            status: 'completed' as const,
            skipped: true,
            result: null,
            started_at: new Date(),
            completed_at: new Date(),
            duration_ms: 0,
          };
          await batch.write([this.jobs.insert(ended, { onConflictDoNothing: true })]);
          return 'replaced' as const;
        }
        pending = false;
      }
      let soFar: BatchSoFar | undefined;
      if (holder && pending && holder.job_id !== record.id) {
        // Claimed meanwhile (its wait was over): it runs with what it had, this one starts afresh.
        soFar = await takeOver(batch, holder, record, debouncing, null, { clearWake: false });
        if (soFar && holder.parent_job)
          await batch.write(this.jobs.wake(holder.parent_job, `debounced-${holder.job_id}`));
      }
      const at = await schedule(batch, debouncing, record.id, soFar ?? { times: 0, firstAt: now }, now);
      const waiting: JobRecord = { ...record, runtime: { ...record.runtime, debounce: { key, at } } };
      await batch.write([this.jobs.insert(waiting, { onConflictDoNothing: true })]);
      return at;
    });
    // Its outbox rows (the step's own, a replaced run's wake-up) are the relay's to publish.
    this.outbox.wake();
    return outcome;
  }

  /**
   * A debounced job's wait is over: it takes its place for good (its row turns `running`, so no
   * later job can replace it, and its key opens a new batch) and gets its arguments as they are
   * now. Undefined when a later job replaced it first: it ended skipped.
   */
  claimStep(jobId: string): Promise<{ args: Record<string, unknown> } | undefined> {
    return this.store.claim(jobId);
  }

  /** `claimStep` for a debounced flow run as it starts; false when a later run replaced it first. */
  async claim(jobId: string): Promise<boolean> {
    return (await this.store.claim(jobId)) !== undefined;
  }
}

/**
 * `record` replaces the queued holder, which ends with `result`, and carries its accumulated
 * arguments; the batch so far, or undefined when the holder was no longer queued.
 */
async function takeOver(
  batch: DebounceBatch,
  holder: DebounceHolder,
  record: JobRecord,
  settings: Debouncing,
  result: unknown,
  options: { clearWake: boolean },
): Promise<BatchSoFar | undefined> {
  if (!(await batch.endReplaced(holder.job_id, result, options))) return undefined;
  for (const name of settings.debounce_args_to_accumulate ?? [])
    record.args[name] = [...asList(holder.args?.[name]), ...asList(record.args[name])];
  return { times: holder.debounced_times + 1, firstAt: holder.first_at.getTime() };
}

/**
 * When the job of `jobId` runs (epoch ms; `now` when at once): the delay, capped by the batch's
 * age. Enough jobs debounced, or no wait left: it runs now and the key is freed for a new batch;
 * else it holds the key.
 */
async function schedule(
  batch: DebounceBatch,
  settings: Debouncing,
  jobId: string,
  soFar: BatchSoFar,
  now: number,
): Promise<number> {
  const capped =
    settings.max_total_debounces_amount !== undefined && soFar.times >= settings.max_total_debounces_amount;
  let at = now + (settings.debounce_delay_s ?? 0) * 1000;
  if (settings.max_total_debouncing_time !== undefined)
    at = Math.min(at, soFar.firstAt + settings.max_total_debouncing_time * 1000);
  if (capped || at <= now) {
    await batch.free();
    return now;
  }
  await batch.hold(jobId, new Date(soFar.firstAt), soFar.times);
  return at;
}

function asList(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}
