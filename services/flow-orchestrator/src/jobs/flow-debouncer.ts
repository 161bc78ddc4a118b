import type { FlowValue } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { resolveKey } from '../engine/concurrency.limiter.js';
import { ExpressionEvaluator } from '../engine/expressions/expression.evaluator.js';
import type { JobRecord } from './job.record.js';
import { JobRepository } from './job.repository.js';
import type { SqlStatement } from './sql-batch.js';

/**
 * Flow-level debouncing: runs with the same key within `debounce_delay_s` collapse into the
 * latest, which waits the delay out (never past `max_total_debouncing_time` after the first)
 * and starts with `debounce_args_to_accumulate` gathered from every run it replaced. The runs
 * replaced end at once, completed and skipped, with `{ debounced_by }`. Once
 * `max_total_debounces_amount` runs were debounced, the latest is not delayed further (it runs
 * when the run it replaced would have) and the next run opens a new batch.
 */
@Injectable()
export class FlowDebouncer {
  constructor(
    private readonly jobs: JobRepository,
    private readonly evaluator: ExpressionEvaluator,
  ) {}

  async submit(record: JobRecord, value: FlowValue, before: SqlStatement[]): Promise<void> {
    const key = await resolveKey(
      this.evaluator,
      value.debounce_key ?? `$workspace/flow/${record.path ?? 'preview'}`,
      record.workspace,
      record.args,
      'value.debounce_key',
    );
    const delayMs = (value.debounce_delay_s ?? 0) * 1000;
    const accumulate = value.debounce_args_to_accumulate ?? [];
    await this.jobs.transaction(async (query) => {
      for (const statement of before) await query(statement.sql, statement.params);
      await query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`debounce:${key}`]);
      const [current] = await query<{
        job_id: string;
        first_at: Date;
        debounced_times: number;
        args: Record<string, unknown> | null;
        status: string | null;
        wake_at: Date | null;
      }>(
        `SELECT d.job_id, d.first_at, d.debounced_times, j.args, j.status, j.wake_at
         FROM debounce_key d LEFT JOIN job j ON j.id = d.job_id WHERE d.key = $1`,
        [key],
      );
      const now = Date.now();
      const pending = current && current.status === 'queued';
      let times = 0;
      let firstAt = now;
      let replacedAt: number | undefined;
      if (pending) {
        replacedAt = current.wake_at?.getTime();
        for (const name of accumulate) {
          record.args[name] = [...asList(current.args?.[name]), ...asList(record.args[name])];
        }
        times = current.debounced_times + 1;
        firstAt = current.first_at.getTime();
        await query(
          `UPDATE job SET status = 'completed', skipped = true, result = $2::jsonb, completed_at = now(),
             started_at = COALESCE(started_at, now()), duration_ms = 0, wake_at = NULL
           WHERE id = $1 AND status = 'queued'`,
          [current.job_id, JSON.stringify({ debounced_by: record.id })],
        );
      }
      const capped =
        value.max_total_debounces_amount !== undefined && times >= value.max_total_debounces_amount;
      let at = now + delayMs;
      if (value.max_total_debouncing_time !== undefined)
        at = Math.min(at, firstAt + value.max_total_debouncing_time * 1000);
      record.runtime.debounceKey = key;
      // A capped run is not pushed further: it runs when the run it replaced would have.
      if (capped) at = Math.min(at, replacedAt ?? now);
      if (capped || at <= now) {
        record.wake_at = at > now ? new Date(at) : null;
        await query(`DELETE FROM debounce_key WHERE key = $1`, [key]);
      } else {
        record.wake_at = new Date(at);
        await query(
          `INSERT INTO debounce_key (key, job_id, first_at, debounced_times) VALUES ($1, $2, $3, $4)
           ON CONFLICT (key) DO UPDATE SET job_id = EXCLUDED.job_id, first_at = EXCLUDED.first_at,
             debounced_times = EXCLUDED.debounced_times`,
          [key, record.id, new Date(firstAt), times],
        );
      }
      const insert = this.jobs.insert(record, { onConflictDoNothing: true });
      await query(insert.sql, insert.params);
      if (!record.wake_at) {
        const dispatch = this.jobs.dispatch(record);
        await query(dispatch.sql, dispatch.params);
      }
    });
  }
}

function asList(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}
