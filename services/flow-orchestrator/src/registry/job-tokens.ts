import { MeshError } from '@flowmesh/contracts';
import { JobTokenSealer } from '@flowmesh/keyring';
import { Inject, Injectable } from '@nestjs/common';
import { ENGINE_CONFIG, type EngineConfig } from '../engine/engine.config.js';
import { JobRepository } from '../jobs/job.repository.js';
import type { SqlStatement } from '../jobs/sql-batch.js';

const CACHE_LIMIT = 10_000;

/**
 * The job token each run acts with. Stored with the run, sealed (`JobTokenSealer`; never returned
 * by an API, never logged), so that any worker can act as the run after a restart; cached per
 * process.
 */
@Injectable()
export class JobTokens {
  private readonly cache = new Map<string, string>();
  private readonly sealer: JobTokenSealer;

  constructor(
    private readonly jobs: JobRepository,
    @Inject(ENGINE_CONFIG) config: EngineConfig,
  ) {
    this.sealer = new JobTokenSealer(config.jobTokenKeys);
  }

  store(jobId: string, token: string, expiresAt: string): SqlStatement {
    this.remember(jobId, token);
    return {
      sql: `INSERT INTO job_token (job_id, token, expires_at) VALUES ($1, $2, $3)
            ON CONFLICT (job_id) DO UPDATE SET token = EXCLUDED.token, expires_at = EXCLUDED.expires_at`,
      params: [jobId, this.sealer.seal(token, jobId), expiresAt],
    };
  }

  async tokenOf(jobId: string): Promise<string> {
    const cached = this.cache.get(jobId);
    if (cached) return cached;
    const stored =
      this.jobs.leasedTokens.take(jobId) ??
      (await this.jobs.query<{ token: string }>(`SELECT token FROM job_token WHERE job_id = $1`, [jobId]))[0]
        ?.token;
    if (!stored) throw new MeshError('INTERNAL', `job ${jobId} has no job token`);
    const token = this.sealer.open(stored, jobId);
    this.remember(jobId, token);
    return token;
  }

  private remember(jobId: string, token: string): void {
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(jobId, token);
  }
}
