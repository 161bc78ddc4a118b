import { Injectable } from '@nestjs/common';
import { ConnectionLanes } from './connection-lanes.js';
import type { SqlStatement } from './sql-batch.js';

const LEASED_LIMIT = 1_000;

/**
 * `job_token`: the sealed token each run acts with. A token read with a lease (`LeaseStore`)
 * is kept here until its first use, so a driver's first step asks Postgres nothing more.
 */
@Injectable()
export class JobTokenStore {
  private readonly leased = new Map<string, string>();

  constructor(private readonly lanes: ConnectionLanes) {}

  save(jobId: string, sealed: string, expiresAt: string): SqlStatement {
    return {
      sql: `INSERT INTO job_token (job_id, token, expires_at) VALUES ($1, $2, $3)
            ON CONFLICT (job_id) DO UPDATE SET token = EXCLUDED.token, expires_at = EXCLUDED.expires_at`,
      params: [jobId, sealed, expiresAt],
    };
  }

  /** The sealed token of the job: the one that came with its lease (taken once), else read. */
  async sealedOf(jobId: string): Promise<string | undefined> {
    const leased = this.leased.get(jobId);
    if (leased !== undefined) {
      this.leased.delete(jobId);
      return leased;
    }
    const rows = await this.lanes.query<{ token: string }>(`SELECT token FROM job_token WHERE job_id = $1`, [
      jobId,
    ]);
    return rows[0]?.token;
  }

  /** A token that came with a leased row; bounded. */
  rememberLeased(jobId: string, sealed: string): void {
    if (this.leased.size >= LEASED_LIMIT) this.leased.clear();
    this.leased.set(jobId, sealed);
  }
}
