/**
 * The rows of a `DataSource.query` result. TypeORM answers an UPDATE or DELETE ... RETURNING on
 * Postgres as `[rows, affected count]`, and a SELECT or INSERT ... RETURNING as the rows alone.
 */
export function rowsOf<Row>(raw: unknown): Row[] {
  if (Array.isArray(raw) && raw.length === 2 && Array.isArray(raw[0]) && typeof raw[1] === 'number') {
    return raw[0] as Row[];
  }
  return raw as Row[];
}
