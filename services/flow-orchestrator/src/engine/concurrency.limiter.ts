import { Injectable } from '@nestjs/common';
import { JobRepository } from '../jobs/job.repository.js';
import type { SqlStatement } from '../jobs/sql-batch.js';
import { ExpressionEvaluator } from './expressions/expression.evaluator.js';
import { NO_RESULTS } from './expressions/expression-scope.js';
import type { FlowRun } from './flow-run.js';

/**
 * `concurrent_limit` / `concurrency_key` / `concurrency_time_window_s` of a flow: at most
 * `limit` runs with the same key at once (running, or started within the window when one is
 * set). A run over the limit waits queued and is woken when a run of its key ends.
 */
@Injectable()
export class ConcurrencyLimiter {
  constructor(
    private readonly jobs: JobRepository,
    private readonly evaluator: ExpressionEvaluator,
  ) {}

  async key(run: FlowRun): Promise<string> {
    const source = run.value.concurrency_key;
    const fallback = `${run.job.workspace}/flow/${run.job.path ?? 'preview'}`;
    if (!source) return fallback;
    return resolveKey(this.evaluator, source, run.job.workspace, run.flowInput, 'value.concurrency_key');
  }

  /** Takes a slot for the run; false when the limit is reached. */
  async tryAcquire(run: FlowRun, key: string): Promise<boolean> {
    const limit = run.value.concurrent_limit ?? 0;
    const windowS = run.value.concurrency_time_window_s ?? 0;
    return this.jobs.transaction(async (query) => {
      await query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [key]);
      const [row] = await query<{ n: number }>(
        `SELECT count(*)::int AS n FROM concurrency_slot
         WHERE key = $1 AND job_id <> $2
           AND (ended_at IS NULL OR started_at > now() - $3 * interval '1 second')`,
        [key, run.id, windowS],
      );
      if ((row?.n ?? 0) >= limit) return false;
      await query(
        `INSERT INTO concurrency_slot (key, job_id) VALUES ($1, $2) ON CONFLICT (key, job_id) DO NOTHING`,
        [key, run.id],
      );
      return true;
    });
  }

  /** The run ended: its slot frees, and the oldest run waiting on the key is woken. */
  release(key: string, jobId: string): SqlStatement[] {
    return [
      { sql: `UPDATE concurrency_slot SET ended_at = now() WHERE key = $1 AND job_id = $2`, params: [key, jobId] },
      {
        sql: `UPDATE job SET wake_at = now() WHERE id = (
                SELECT id FROM job WHERE status = 'queued' AND runtime->>'concurrencyKey' = $1
                  AND wake_at IS NOT NULL AND id <> $2 ORDER BY created_at LIMIT 1)`,
        params: [key, jobId],
      },
    ];
  }
}

const TEMPLATE = /\$workspace|\$args\[/;

/**
 * A concurrency or debounce key: a template (`$workspace`, `$args[name]`) as Windmill writes
 * them, else a JavaScript expression over `flow_input` (and `args`, `workspace`); text that is
 * neither is the key as written.
 */
export async function resolveKey(
  evaluator: ExpressionEvaluator,
  source: string,
  workspace: string,
  args: Record<string, unknown>,
  fieldPath: string,
): Promise<string> {
  if (TEMPLATE.test(source)) {
    return source
      .replaceAll('$workspace', workspace)
      .replace(/\$args\[([^\]]+)\]/g, (_match, name: string) => {
        const value = args[name.trim().replace(/^['"]|['"]$/g, '')];
        return typeof value === 'string' ? value : JSON.stringify(value ?? null);
      });
  }
  try {
    const value = await evaluator.evaluate(
      source,
      { flowInput: args, results: NO_RESULTS, vars: { args, workspace } },
      fieldPath,
    );
    return typeof value === 'string' ? value : JSON.stringify(value ?? null);
  } catch {
    return source;
  }
}
