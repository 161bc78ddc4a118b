import { createHash } from 'node:crypto';
import type { QueryRunner } from 'typeorm';

/**
 * The advisory-lock key for one schema's migrations: the first 8 bytes of a SHA-256, so
 * every replica and every version of the code derive the same key (Postgres's `hashtext`
 * is not promised to stay stable across major versions).
 */
export function migrationLockKey(schema: string): bigint {
  return createHash('sha256').update(`flowmesh:migrations:${schema}`).digest().readBigInt64BE(0);
}

/**
 * Runs `work` while holding a session-level advisory lock on the runner's connection. A
 * second replica blocks here until the first finishes; if a replica dies, Postgres drops
 * its session and the lock with it.
 */
export async function withAdvisoryLock<T>(
  runner: QueryRunner,
  key: bigint,
  work: () => Promise<T>,
): Promise<T> {
  await runner.query('SELECT pg_advisory_lock($1::bigint)', [key.toString()]);
  try {
    return await work();
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1::bigint)', [key.toString()]);
  }
}
