/**
 * SQLSTATE classes of a database that cannot serve right now: connection exceptions (08),
 * insufficient resources (53: "too many clients"), operator intervention (57: a restart).
 */
const UNAVAILABLE_SQLSTATE = /^(08|53|57)/;

/**
 * Whether an error says PostgreSQL could not serve the statement (unreachable, out of
 * connections, restarting), not that the statement was wrong: a fault of the infrastructure,
 * which a retry may clear. TypeORM's QueryFailedError carries the driver's SQLSTATE as `code`;
 * node-postgres's own pool and connection failures carry none.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNAVAILABLE_SQLSTATE.test(code)) return true;
  return /timeout exceeded when trying to connect|Connection terminated/i.test(error.message);
}
