import { isTerminalJobStatus, jobEvents, type JobStatus } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { CancelSignals } from '../engine/cancel-signals.js';
import { ENGINE_CONFIG, type EngineConfig } from '../engine/engine.config.js';
import { EngineOutbox } from '../engine/engine-outbox.js';
import { LocalClaims } from '../engine/local-claims.js';
import { leafJobOf } from '../engine/modules/leaf.executor.js';
import { LeafStepRunner } from '../engine/steps/leaf-step.runner.js';
import type { JobRecord } from '../store/job.record.js';
import { JobStore } from '../store/job.store.js';
import { LeaseStore } from '../store/lease.store.js';
import type { SqlStatement } from '../store/sql-batch.js';
import { HandBackError } from '@flowmesh/messaging';

/**
 * Runs a script job that came through the work stream: a flow step whose tag another worker
 * serves, or a script run on its own. Its result, its logs and the wake-up of its flow commit
 * together; a job found `running` (its worker died) runs again.
 */
@Injectable()
export class ScriptJobExecutor {
  constructor(
    private readonly jobs: JobStore,
    private readonly leases: LeaseStore,
    private readonly runner: LeafStepRunner,
    private readonly outbox: EngineOutbox,
    private readonly cancels: CancelSignals,
    private readonly claims: LocalClaims,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
  ) {}

  /** `stopping`: the worker stops; a job that fails meanwhile is handed back, not recorded as failed. */
  async execute(queued: JobRecord, stopping?: AbortSignal): Promise<void> {
    // One execution at a time: a second delivery while a live worker runs it is dropped (that
    // worker wakes the flow); once its worker died, its lease lapses and the job runs again.
    if (!this.claims.claim(queued.id)) return;
    try {
      const record = await this.leases.acquire(queued.id, this.config.instanceId, this.config.leaseTtlMs);
      if (!record || isTerminalJobStatus(record.status)) return;
      await this.run(record, stopping);
    } finally {
      this.claims.release(queued.id);
    }
  }

  /**
   * A script job taken in one query: its lease (only if it is a script job of `workspace`) and
   * its row. False when that query took nothing (a flow, an AI step, another workspace, a job
   * another worker runs, none): the caller then goes the usual way, which tells these apart.
   */
  async executeLeased(jobId: string, workspace: string, stopping?: AbortSignal): Promise<boolean> {
    if (!this.claims.claim(jobId)) return false;
    try {
      const record = await this.leases.acquire(jobId, this.config.instanceId, this.config.leaseTtlMs, {
        scriptIn: workspace,
      });
      if (!record) return false;
      if (!isTerminalJobStatus(record.status)) await this.run(record, stopping);
      return true;
    } finally {
      this.claims.release(jobId);
    }
  }

  private async run(record: JobRecord, stopping: AbortSignal | undefined): Promise<void> {
    const root = record.parent_job === null;
    const start: SqlStatement[] = [this.jobs.markRunning(record.id)];
    if (root && record.status === 'queued') {
      start.push(
        this.jobs.event(
          jobEvents.started,
          {
            job_id: record.id,
            workspace: record.workspace,
            root_job: record.root_job,
            parent_job: null,
            kind: record.kind,
            path: record.path,
            tag: record.tag,
            started_at: new Date().toISOString(),
          },
          `started:${record.id}`,
        ),
      );
    }
    await this.jobs.execute(start);
    const leaf = leafJobOf(record, {
      timeoutMs: this.config.defaultTimeoutMs,
      memoryMb: this.config.defaultMemoryMb,
    });
    // A script run from a trigger runs its preprocessor first, in the job (as Windmill's does).
    const preprocess = record.parent_job === null && record.runtime.applyPreprocessor === true;
    const outcome = await this.runner.run(
      preprocess ? { ...leaf, preprocess } : leaf,
      this.cancels.signalFor(record.root_job),
    );
    // It may have failed of the stop (its runner closed under it): another worker runs it again.
    if (!outcome.success && stopping?.aborted) {
      const statements = this.leases.handBack(record.id, this.config.instanceId);
      await this.jobs.execute(statements);
      this.outbox.afterCommit(statements);
      throw new HandBackError(`job ${record.id} handed back: it failed while this worker stops`);
    }
    const status: JobStatus = outcome.success ? 'completed' : 'failed';
    if (outcome.preprocessedArgs) {
      // As Windmill: the job's arguments become what its preprocessor gave `main`, and it counts
      // as preprocessed (should it run again, `main` gets them at once). Its own write: one
      // statement may not write the row twice.
      const runtime = { ...record.runtime, applyPreprocessor: false };
      await this.jobs.execute([this.jobs.update(record.id, { args: outcome.preprocessedArgs, runtime })]);
    }
    const end: SqlStatement[] = [this.jobs.finish(record.id, { status, result: outcome.result })];
    if (outcome.logs) end.push(outcome.logs);
    if (record.parent_job) {
      end.push(...this.jobs.wake(record.parent_job, `step-${record.id}`));
    } else {
      end.push(
        this.jobs.event(
          jobEvents.completed,
          {
            job_id: record.id,
            workspace: record.workspace,
            root_job: record.root_job,
            parent_job: null,
            kind: record.kind,
            path: record.path,
            status,
            success: outcome.success,
            duration_ms: outcome.durationMs,
            completed_at: new Date().toISOString(),
          },
          `completed:${record.id}`,
        ),
      );
      this.cancels.forget(record.id);
    }
    await this.jobs.execute(end);
    this.outbox.afterCommit(end);
  }
}
