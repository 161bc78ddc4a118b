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
}

/**
 * Several writes as one statement (data-modifying CTEs), so they commit together in one round
 * trip: a step's result, its flow's status and the messages they cause cost one commit.
 * Parameters are renumbered; `finalSql` may read the CTEs `s0..sN` (default: the last one).
 * The statements must not touch the same row twice (Postgres applies CTE writes in no order).
 */
export function combineStatements(statements: readonly SqlStatement[], finalSql?: string): SqlStatement {
  if (statements.length === 1 && finalSql === undefined) return statements[0]!;
  const params: unknown[] = [];
  const ctes = statements.map((statement, index) => {
    const offset = params.length;
    params.push(...statement.params);
    const sql = statement.sql.replace(/\$(\d+)/g, (_match, n: string) => `$${Number(n) + offset}`);
    const returning = /\breturning\b/i.test(sql) ? sql : `${sql} RETURNING 1 AS done`;
    return `s${index} AS (${returning})`;
  });
  const last = `s${statements.length - 1}`;
  return { sql: `WITH ${ctes.join(',\n')}\n${finalSql ?? `SELECT * FROM ${last}`}`, params };
}
