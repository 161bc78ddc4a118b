import { describeTarget, type DatabaseTarget } from './database-url.util.js';

/**
 * Postgres could not be reached or refused us. The message names host, port, database and
 * user (never the password) so an operator sees at once which setting is wrong.
 */
export class DatabaseUnavailableError extends Error {
  readonly code = 'UNAVAILABLE';

  constructor(
    readonly target: DatabaseTarget,
    cause: unknown,
    what = 'cannot connect to PostgreSQL',
  ) {
    super(`${what} at ${describeTarget(target)}: ${reasonOf(cause)}`, { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

function reasonOf(cause: unknown): string {
  if (cause instanceof AggregateError && cause.errors.length > 0) return reasonOf(cause.errors[0]);
  if (cause instanceof Error) return cause.message || (cause as { code?: string }).code || cause.name;
  return String(cause);
}
