import type { DataSource } from 'typeorm';

const DEFAULT_TIMEOUT_MS = 2_000;

/**
 * Readiness: resolves when Postgres answers `SELECT 1` within the timeout, rejects with a
 * short reason otherwise (a hung pool counts as down, not as slow).
 */
export async function checkDatabase(dataSource: DataSource, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<void> {
  if (!dataSource.isInitialized) throw new Error('database connection is not open');
  const query = dataSource.query('SELECT 1');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`database did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([query, timeout]);
  } finally {
    clearTimeout(timer);
    query.catch(() => undefined); // a late failure after the timeout must not go unhandled
  }
}
