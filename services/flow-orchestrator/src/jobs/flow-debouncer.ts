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
 * `max_total_debounces_amount` runs were debounced, the latest runs at once (a forced execution,
 * as Windmill's) and the next run opens a new batch. A run takes itself out of its batch when it
 * starts (`claim`): from then on a new run of the key opens a new batch instead of replacing it.
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
      }>(
        `SELECT d.job_id, d.first_at, d.debounced_times, j.args, j.status
         FROM debounce_key d LEFT JOIN job j ON j.id = d.job_id WHERE d.key = $1`,
        [key],
      );
      const now = Date.now();
      let times = 0;
      let firstAt = now;
      // A run that began (claimed when it started) is out of the batch: this one opens a new one.
      const replaced =
        current?.status === 'queued'
          ? await query(
              `UPDATE job SET status = 'completed', skipped = true, result = $2::jsonb, completed_at = now(),
                 started_at = COALESCE(started_at, now()), duration_ms = 0, wake_at = NULL
               WHERE id = $1 AND status = 'queued' RETURNING id`,
              [current.job_id, JSON.stringify({ debounced_by: record.id })],
            )
          : [];
      if (current && replaced.length > 0) {
        for (const name of accumulate) {
          record.args[name] = [...asList(current.args?.[name]), ...asList(record.args[name])];
        }
        times = current.debounced_times + 1;
        firstAt = current.first_at.getTime();
      }
      const capped =
        value.max_total_debounces_amount !== undefined && times >= value.max_total_debounces_amount;
      let at = now + delayMs;
      if (value.max_total_debouncing_time !== undefined)
        at = Math.min(at, firstAt + value.max_total_debouncing_time * 1000);
      record.runtime.debounceKey = key;
      // Enough runs were debounced: this one is forced to run now (Windmill), and the next run
      // opens a new batch.
      if (capped || at <= now) {
        record.wake_at = null;
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

  /**
   * A debounced run starts: it becomes `running` at once and its key opens a new batch, so no
   * run submitted from now on replaces it. False when a later run replaced it first (it ended).
   */
  async claim(jobId: string): Promise<boolean> {
    return (await claimDebounced(this.jobs, jobId)) !== undefined;
  }
}

/**
 * Takes a debounced job (a flow run or a step) out of its batch as it starts: its row turns
 * `running` (a replacement only ever takes a `queued` one) and its key is released, in one
 * statement. Its arguments as they are now; undefined when it was replaced first (it ended).
 */
export async function claimDebounced(
  jobs: JobRepository,
  jobId: string,
): Promise<{ args: Record<string, unknown> } | undefined> {
  const [claimed] = await jobs.query<{ args: Record<string, unknown> }>(
    `WITH claimed AS (
       UPDATE job SET status = 'running', started_at = COALESCE(started_at, now())
       WHERE id = $1 AND status IN ('queued', 'running') RETURNING id, args),
     released AS (
       DELETE FROM debounce_key WHERE job_id IN (SELECT id FROM claimed) RETURNING 1)
     SELECT args FROM claimed`,
    [jobId],
  );
  return claimed;
}

function asList(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}
