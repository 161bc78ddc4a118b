import { describe, expect, it } from 'vitest';
import { combineStatements } from './sql-batch.js';

describe('combineStatements', () => {
  it('one statement stays as it is', () => {
    const statement = { sql: 'UPDATE job SET x = $1', params: [1] };
    expect(combineStatements([statement])).toBe(statement);
  });

  it('renumbers parameters and returns the last statement', () => {
    const combined = combineStatements([
      { sql: 'INSERT INTO a VALUES ($1, $2)', params: [1, 2] },
      { sql: 'UPDATE b SET y = $1 WHERE id = $2 RETURNING id', params: [3, 4] },
    ]);
    expect(combined.sql).toBe(
      'WITH s0 AS (INSERT INTO a VALUES ($1, $2) RETURNING 1 AS done),\ns1 AS (UPDATE b SET y = $3 WHERE id = $4 RETURNING id)\nSELECT * FROM s1',
    );
    expect(combined.params).toEqual([1, 2, 3, 4]);
  });
});
