/** A message written to the outbox by a statement, published as soon as it commits. */
export interface OutboxMessage {
  /** Relative subject (`work.flow.job`, `evt.job.completed`). */
  readonly subject: string;
  readonly payload: unknown;
  readonly msgId: string;
}

/** One SQL statement with its own `$1..$n` parameters. */
export interface SqlStatement {
  readonly sql: string;
  readonly params: readonly unknown[];
  /** The outbox message it writes, when it writes one whose subject is known here. */
  readonly message?: OutboxMessage;
  /** It writes outbox rows only the relay can publish (their subject is read in SQL). */
  readonly relay?: boolean;
  /** The job row it writes, when it writes only that row (an insert or upsert of a job, an update by id). */
  readonly jobRow?: string;
  /** The rows of other tables it writes, when it writes only those: `table:key` each. */
  readonly rowKeys?: readonly string[];
}

/**
 * Whether statements may go into one statement with others of a flow's later writes: each
 * touches its own rows (a job row of its own, named rows of another table, or appends a log line
 * or an outbox message). Postgres applies the writes of one statement in no set order, so a row
 * touched twice must not be.
 */
export function touchesOwnRows(statement: SqlStatement, seenRows: Set<string>): boolean {
  const rows = statement.jobRow !== undefined ? [statement.jobRow] : statement.rowKeys;
  if (rows) {
    if (rows.some((row) => seenRows.has(row))) return false;
    for (const row of rows) seenRows.add(row);
    return true;
  }
  return APPEND_ONLY.test(statement.sql);
}

/**
 * The rows `statements` write (job ids, `table:key` for others; `seed`: one more the caller
 * writes with them), or undefined when they may write rows they do not name, or one row twice.
 */
export function rowsTouched(statements: readonly SqlStatement[], seed?: string): Set<string> | undefined {
  const rows = new Set<string>(seed === undefined ? [] : [seed]);
  return statements.every((statement) => touchesOwnRows(statement, rows)) ? rows : undefined;
}

const APPEND_ONLY = /^\s*INSERT INTO (job_log|outbox_message) \([^)]*\)\s*VALUES/;

/**
 * Several writes as one statement (data-modifying CTEs), so they commit together in one round
 * trip: a step's result, its flow's status and the messages they cause cost one commit.
 * Parameters are renumbered; `finalSql` may read the CTEs `s0..sN` (default: the last one).
 * The statements must not touch the same row twice (Postgres applies CTE writes in no order).
 */
export function combineStatements(
  statements: readonly SqlStatement[],
  finalSql?: string,
  keep = true,
): SqlStatement {
  if (statements.length === 1 && finalSql === undefined) return statements[0];
  const params = statements.flatMap((statement) => statement.params);
  // The same shapes come back every step: the combined text is built once per shape (unless
  // `keep` is false: a shape that seldom comes back).
  const key = keep
    ? `${statements.map((statement) => `${statement.params.length}:${statement.sql}`).join('\u0000')}\u0001${finalSql ?? ''}`
    : '';
  let sql = keep ? shapes.get(key) : undefined;
  if (sql === undefined) {
    let offset = 0;
    const ctes = statements.map((statement, index) => {
      const shift = offset;
      offset += statement.params.length;
      const text = statement.sql.replace(/\$(\d+)/g, (_match, n: string) => `$${Number(n) + shift}`);
      const returning = /\breturning\b/i.test(text) ? text : `${text} RETURNING 1 AS done`;
      return `s${index} AS (${returning})`;
    });
    sql = `WITH ${ctes.join(',\n')}\n${finalSql ?? `SELECT * FROM s${statements.length - 1}`}`;
    if (keep) {
      if (shapes.size > 2_000) shapes.clear();
      shapes.set(key, sql);
    }
  }
  return { sql, params };
}

const shapes = new Map<string, string>();
