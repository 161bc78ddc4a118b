import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { JobRepository } from '../../jobs/job.repository.js';
import type { SqlStatement } from '../../jobs/sql-batch.js';

/**
 * Results kept for `cache_ttl` seconds, keyed by what ran and with which arguments: a step by
 * its workspace, flow, step id and code (or script path and hash), a flow by its path or value.
 */
@Injectable()
export class ResultCache {
  constructor(private readonly jobs: JobRepository) {}

  static key(parts: readonly unknown[]): string {
    return createHash('sha256').update(stableJson(parts)).digest('hex');
  }

  async lookup(key: string): Promise<{ hit: true; result: unknown } | { hit: false }> {
    const rows = await this.jobs.query<{ result: unknown }>(
      `SELECT result FROM result_cache WHERE key = $1 AND expires_at > now()`,
      [key],
    );
    return rows[0] ? { hit: true, result: rows[0].result } : { hit: false };
  }

  store(key: string, result: unknown, ttlSeconds: number): SqlStatement {
    return {
      sql: `INSERT INTO result_cache (key, result, expires_at)
            VALUES ($1, $2::jsonb, now() + $3 * interval '1 second')
            ON CONFLICT (key) DO UPDATE SET result = EXCLUDED.result, expires_at = EXCLUDED.expires_at`,
      params: [key, JSON.stringify(result ?? null), ttlSeconds],
      rowKeys: [`result_cache:${key}`],
    };
  }
}

/** JSON with object keys sorted, so equal arguments hash equally whatever their order. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(
          Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : item,
  );
}
