import { Injectable } from '@nestjs/common';
import { ConnectionLanes } from './connection-lanes.js';
import type { SqlStatement } from './sql-batch.js';

/** `result_cache`: results kept until `expires_at`, by key. */
@Injectable()
export class ResultCacheStore {
  constructor(private readonly lanes: ConnectionLanes) {}

  async lookup(key: string): Promise<{ hit: true; result: unknown } | { hit: false }> {
    const rows = await this.lanes.query<{ result: unknown }>(
      `SELECT result FROM result_cache WHERE key = $1 AND expires_at > now()`,
      [key],
    );
    return rows[0] ? { hit: true, result: rows[0].result } : { hit: false };
  }

  save(key: string, result: unknown, ttlSeconds: number): SqlStatement {
    return {
      sql: `INSERT INTO result_cache (key, result, expires_at)
            VALUES ($1, $2::jsonb, now() + $3 * interval '1 second')
            ON CONFLICT (key) DO UPDATE SET result = EXCLUDED.result, expires_at = EXCLUDED.expires_at`,
      params: [key, JSON.stringify(result ?? null), ttlSeconds],
      rowKeys: [`result_cache:${key}`],
    };
  }
}
