import { Injectable } from '@nestjs/common';
import { ConnectionLanes } from './connection-lanes.js';
import type { SqlStatement } from './sql-batch.js';

/** `concurrency_slot`: the jobs that hold a slot of a concurrency key, until each ends. */
@Injectable()
export class ConcurrencySlotStore {
  constructor(private readonly lanes: ConnectionLanes) {}

  /**
   * Takes a slot of `key` for `jobId` unless `limit` jobs hold one; with a window (`windowS`), a
   * slot older than the window no longer counts. Serialised per key by an advisory lock.
   */
  tryAcquire(key: string, jobId: string, limit: number, windowS: number): Promise<boolean> {
    return this.lanes.transaction(async (query) => {
      await query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [key]);
      const [row] = await query<{ n: number }>(
        `SELECT count(*)::int AS n FROM concurrency_slot
         WHERE key = $1 AND job_id <> $2 AND ended_at IS NULL
           AND ($3 = 0 OR started_at > now() - $3 * interval '1 second')`,
        [key, jobId, windowS],
      );
      if ((row?.n ?? 0) >= limit) return false;
      await query(
        `INSERT INTO concurrency_slot (key, job_id) VALUES ($1, $2)
         ON CONFLICT (key, job_id) DO UPDATE SET started_at = now(), ended_at = NULL`,
        [key, jobId],
      );
      return true;
    });
  }

  async release(key: string, jobId: string): Promise<void> {
    await this.lanes.query(RELEASE_SQL, [key, jobId]);
  }

  /** The job's slot frees, and the oldest run waiting queued on the key is woken. */
  releaseAndWakeNext(key: string, jobId: string): SqlStatement[] {
    return [
      { sql: RELEASE_SQL, params: [key, jobId] },
      {
        sql: `UPDATE job SET wake_at = now() WHERE id = (
                SELECT id FROM job WHERE status = 'queued' AND runtime->>'concurrencyKey' = $1
                  AND wake_at IS NOT NULL AND id <> $2 ORDER BY created_at LIMIT 1)`,
        params: [key, jobId],
      },
    ];
  }
}

const RELEASE_SQL = `UPDATE concurrency_slot SET ended_at = now() WHERE key = $1 AND job_id = $2`;
