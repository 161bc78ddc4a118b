import { faultOfResult, jobEvents, type JobStatus } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { JobRecord } from '../store/job.record.js';
import { JobStore } from '../store/job.store.js';
import { ResultCacheStore } from '../store/result-cache.store.js';
import { rowsTouched, type SqlStatement } from '../store/sql-batch.js';
import { WriteGroups } from '../store/write-groups.js';

import { CancelSignals, canceledResult } from './cancel-signals.js';
import { ConcurrencyLimiter } from './concurrency.limiter.js';
import { EngineOutbox } from './engine-outbox.js';
import type { FlowRun, StopSignal } from './flow-run.js';
import { FlowMetrics } from '../telemetry/flow.metrics.js';
import { FlowStateStore } from './flow-state.store.js';

/** How a flow job ended, as its parent (or the driver) reads it. */
export interface DriveEnd {
  readonly success: boolean;
  readonly result: unknown;
  readonly stop?: StopSignal;
  readonly record: JobRecord;
}

/**
 * Ends a flow job in one commit: its terminal status and result, the completed event of a run,
 * its concurrency slot, its result cache entry, and the wake-up of a parent waiting elsewhere.
 */
@Injectable()
export class FlowFinisher {
  constructor(
    private readonly jobs: JobStore,
    private readonly cache: ResultCacheStore,
    private readonly concurrency: ConcurrencyLimiter,
    private readonly outbox: EngineOutbox,
    private readonly cancels: CancelSignals,
    private readonly store: FlowStateStore,
    private readonly groups: WriteGroups,
    private readonly metrics: FlowMetrics,
  ) {}

  /** Windmill's result of a cancelled job. */
  cancelled(run: FlowRun): NonNullable<FlowRun['ending']> {
    return {
      success: false,
      skipped: false,
      result: canceledResult(run.cancelRequest?.by ?? 'unknown', run.cancelRequest?.reason ?? null),
    };
  }

  async finish(run: FlowRun, wakeParent: boolean): Promise<DriveEnd> {
    const ending = run.ending!;
    const status: JobStatus = run.cancelRequest ? 'cancelled' : ending.success ? 'completed' : 'failed';
    if (ending.stop) run.runtime.stopped = ending.stop;
    const now = new Date();
    let record: JobRecord = {
      ...run.job,
      status,
      result: ending.result,
      skipped: ending.skipped,
      flow_status: run.status,
      runtime: run.runtime,
      completed_at: now,
      started_at: run.job.started_at ?? now,
      duration_ms: now.getTime() - (run.job.started_at ?? now).getTime(),
    };
    if (run.ephemeral)
      return {
        success: status === 'completed',
        result: ending.result,
        ...(ending.stop ? { stop: ending.stop } : {}),
        record,
      };
    const pending = this.store.takePending(run);
    const statements: SqlStatement[] = [...pending.statements];
    if (run.runtime.concurrencyKey)
      statements.push(...this.concurrency.release(run.runtime.concurrencyKey, run.id));
    if (status === 'completed' && run.runtime.cacheKey && run.runtime.cacheTtlS) {
      statements.push(this.cache.save(run.runtime.cacheKey, ending.result, run.runtime.cacheTtlS));
    }
    if (run.job.parent_job === null) {
      this.metrics.flowFinished(run.job.kind, status);
      const fault = status === 'failed' ? faultOfResult(ending.result) : undefined;
      statements.push(
        this.jobs.event(
          jobEvents.completed,
          {
            job_id: run.id,
            workspace: run.job.workspace,
            root_job: run.job.root_job,
            parent_job: null,
            kind: run.job.kind,
            path: run.job.path,
            status,
            success: status === 'completed',
            ...(fault ? { fault } : {}),
            duration_ms: record.duration_ms,
            completed_at: now.toISOString(),
          },
          `completed:${run.id}`,
        ),
      );
      this.cancels.forget(run.id);
    } else if (wakeParent) {
      statements.push(...this.jobs.wake(run.job.parent_job, `child-${run.id}`));
    }
    // Last, so that its row is what the statement answers.
    statements.push(
      this.jobs.finish(run.id, {
        status,
        result: ending.result,
        skipped: ending.skipped,
        flow_status: run.status,
        runtime: run.runtime,
        ...(pending.fields.started_at ? { startedAt: pending.fields.started_at } : {}),
      }),
    );
    const rows = await run.serialize(() =>
      this.groups.write<{ id: string; duration_ms: number | null; completed_at: Date }>({
        id: run.id,
        statements,
        rows: rowsTouched(statements),
      }),
    );
    this.outbox.afterCommit(statements);
    const row = rows[0];
    if (row) record = { ...record, duration_ms: row.duration_ms, completed_at: row.completed_at };
    return {
      success: status === 'completed',
      result: ending.result,
      ...(ending.stop ? { stop: ending.stop } : {}),
      record,
    };
  }
}
