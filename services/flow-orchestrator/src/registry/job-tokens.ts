import { MeshError } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { JobRepository } from '../jobs/job.repository.js';
import type { SqlStatement } from '../jobs/sql-batch.js';

const CACHE_LIMIT = 10_000;

/**
 * The job token each run acts with. Stored with the run (never returned by an API, never
 * logged) so that any worker can act as the run after a restart; cached per process.
 */
@Injectable()
export class JobTokens {
  private readonly cache = new Map<string, string>();

  constructor(private readonly jobs: JobRepository) {}

  store(jobId: string, token: string, expiresAt: string): SqlStatement {
    this.remember(jobId, token);
    return {
      sql: `INSERT INTO job_token (job_id, token, expires_at) VALUES ($1, $2, $3)
            ON CONFLICT (job_id) DO UPDATE SET token = EXCLUDED.token, expires_at = EXCLUDED.expires_at`,
      params: [jobId, token, expiresAt],
    };
  }

  async tokenOf(jobId: string): Promise<string> {
    const cached = this.cache.get(jobId);
    if (cached) return cached;
    const leased = this.jobs.leasedTokens.take(jobId);
    if (leased) {
      this.remember(jobId, leased);
      return leased;
    }
    const rows = await this.jobs.query<{ token: string }>(`SELECT token FROM job_token WHERE job_id = $1`, [
      jobId,
    ]);
    const token = rows[0]?.token;
    if (!token) throw new MeshError('INTERNAL', `job ${jobId} has no job token`);
    this.remember(jobId, token);
    return token;
  }

  private remember(jobId: string, token: string): void {
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(jobId, token);
  }
}
