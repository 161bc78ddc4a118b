import type { Debouncing } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { JobRecord } from '../../jobs/job.record.js';
import { claimDebounced } from '../../jobs/flow-debouncer.js';
import { JobRepository } from '../../jobs/job.repository.js';
import type { SqlStatement } from '../../jobs/sql-batch.js';
import { resolveKey } from '../concurrency.limiter.js';
import { EngineOutbox } from '../engine-outbox.js';
import { ExpressionEvaluator } from '../expressions/expression.evaluator.js';
import type { ModuleContext } from '../module-outcome.js';

/**
 * A step's `debouncing`, across flow runs: a step reaching its key waits the delay as a queued
 * job; a later run's step with the same key replaces it (the one replaced ends skipped with a
 * null result and its flow goes on) and carries its `debounce_args_to_accumulate`. The caps
 * (`max_total_debouncing_time`, `max_total_debounces_amount`) force a run.
 */
@Injectable()
export class StepDebouncer {
  constructor(
    private readonly jobs: JobRepository,
    private readonly evaluator: ExpressionEvaluator,
    private readonly outbox: EngineOutbox,
  ) {}

  /**
   * Writes the waiting step job (with `before`): when it may run (epoch ms), or `replaced` when a
   * run started after this one already holds the key (this step then ended skipped at once).
   */
  async register(
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
    const outcome = await this.jobs.transaction(async (query) => {
      for (const statement of before) await query(statement.sql, statement.params);
      await query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`debounce:${key}`]);
      const [current] = await query<{
        job_id: string;
        first_at: Date;
        debounced_times: number;
        args: Record<string, unknown> | null;
        status: string | null;
        parent_job: string | null;
        newer: boolean;
      }>(
        `SELECT d.job_id, d.first_at, d.debounced_times, j.args, j.status, j.parent_job,
                (SELECT created_at FROM job WHERE id = j.root_job) > (SELECT created_at FROM job WHERE id = $2) AS newer
         FROM debounce_key d LEFT JOIN job j ON j.id = d.job_id WHERE d.key = $1`,
        [key, record.root_job],
      );
      // Runs reach the step in any order; the run started last is the one that runs it. A step
      // that already began to run (claimed) is out of the batch: this one opens a new one.
      let pending = current?.status === 'queued';
      if (current && pending && current.newer) {
        const accumulate = debouncing.debounce_args_to_accumulate ?? [];
        const merged = { ...current.args };
        for (const name of accumulate)
          merged[name] = [...asList(record.args[name]), ...asList(current.args?.[name])];
        const kept = await query(
          `UPDATE job SET args = $2::jsonb WHERE id = $1 AND status = 'queued' RETURNING id`,
          [current.job_id, JSON.stringify(merged)],
        );
        if (kept.length > 0) {
          const ended = {
            ...record,
            status: 'completed' as const,
            skipped: true,
            result: null,
            started_at: new Date(),
            completed_at: new Date(),
            duration_ms: 0,
          };
          const insert = this.jobs.insert(ended, { onConflictDoNothing: true });
          await query(insert.sql, insert.params);
          return 'replaced' as const;
        }
        pending = false;
      }
      let times = 0;
      let firstAt = now;
      if (current && pending && current.job_id !== record.id) {
        const replaced = await query(
          `UPDATE job SET status = 'completed', skipped = true, result = 'null'::jsonb, completed_at = now(),
             started_at = COALESCE(started_at, now()), duration_ms = 0
           WHERE id = $1 AND status = 'queued' RETURNING id`,
          [current.job_id],
        );
        // Claimed meanwhile (its wait was over): it runs with what it had, this one starts afresh.
        if (replaced.length > 0) {
          for (const name of debouncing.debounce_args_to_accumulate ?? []) {
            record.args[name] = [...asList(current.args?.[name]), ...asList(record.args[name])];
          }
          times = current.debounced_times + 1;
          firstAt = current.first_at.getTime();
          if (current.parent_job) {
            for (const wake of this.jobs.wake(current.parent_job, `debounced-${current.job_id}`)) {
              await query(wake.sql, wake.params);
            }
          }
        }
      }
      const capped =
        debouncing.max_total_debounces_amount !== undefined && times >= debouncing.max_total_debounces_amount;
      let at = now + (debouncing.debounce_delay_s ?? 0) * 1000;
      if (debouncing.max_total_debouncing_time !== undefined) {
        at = Math.min(at, firstAt + debouncing.max_total_debouncing_time * 1000);
      }
      if (capped || at <= now) {
        at = now;
        await query(`DELETE FROM debounce_key WHERE key = $1`, [key]);
      } else {
        await query(
          `INSERT INTO debounce_key (key, job_id, first_at, debounced_times) VALUES ($1, $2, $3, $4)
           ON CONFLICT (key) DO UPDATE SET job_id = EXCLUDED.job_id, first_at = EXCLUDED.first_at,
             debounced_times = EXCLUDED.debounced_times`,
          [key, record.id, new Date(firstAt), times],
        );
      }
      const waiting: JobRecord = { ...record, runtime: { ...record.runtime, debounce: { key, at } } };
      const insert = this.jobs.insert(waiting, { onConflictDoNothing: true });
      await query(insert.sql, insert.params);
      return at;
    });
    // Its outbox rows (the step's own, a replaced run's wake-up) are the relay's to publish.
    this.outbox.wake();
    return outcome;
  }

  /**
   * The step's wait is over: it takes its place for good (its row turns `running`, so no later
   * run can replace it any more, and its key opens a new batch) and gets its arguments as they
   * are now (a run that reached the step late and was replaced by it appended its own).
   * Undefined when a later run replaced it first: it ended skipped.
   */
  claim(jobId: string): Promise<{ args: Record<string, unknown> } | undefined> {
    return claimDebounced(this.jobs, jobId);
  }
}

function asList(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}
