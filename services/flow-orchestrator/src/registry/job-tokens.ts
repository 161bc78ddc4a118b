import { MeshError } from '@flowmesh/contracts';
import { JobTokenSealer } from '@flowmesh/keyring';
import { Injectable } from '@nestjs/common';
import { JobTokenStore } from '../store/job-token.store.js';
import type { SqlStatement } from '../store/sql-batch.js';

const CACHE_LIMIT = 10_000;

/**
 * The job token each run acts with. Stored with the run, sealed (`JobTokenSealer`; never returned
 * by an API, never logged), so that any worker can act as the run after a restart; cached per
 * process.
 */
@Injectable()
export class JobTokens {
  private readonly cache = new Map<string, string>();

  constructor(
    private readonly tokens: JobTokenStore,
    private readonly sealer: JobTokenSealer,
  ) {}

  store(jobId: string, token: string, expiresAt: string): SqlStatement {
    this.remember(jobId, token);
    return this.tokens.save(jobId, this.sealer.seal(token, jobId), expiresAt);
  }

  async tokenOf(jobId: string): Promise<string> {
    const cached = this.cache.get(jobId);
    if (cached) return cached;
    const stored = await this.tokens.sealedOf(jobId);
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
