import { describe, expect, it } from 'vitest';
import { combineStatements, rowsTouched } from './sql-batch.js';

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

describe('rowsTouched', () => {
  const jobRow = (id: string) => ({ sql: 'INSERT INTO job (id) VALUES ($1)', params: [id], jobRow: id });
  const cached = (key: string) => ({
    sql: 'INSERT INTO result_cache (key) VALUES ($1) ON CONFLICT (key) DO UPDATE SET key = $1',
    params: [key],
    rowKeys: [`result_cache:${key}`],
  });
  const log = { sql: 'INSERT INTO job_log (job_id, chunk) VALUES ($1, $2)', params: ['s', 'x'] };
  const wake = { sql: 'UPDATE job SET wake_seq = wake_seq + 1 WHERE id = $1', params: ['p'] };

  it('names the job rows and the keyed rows written, with the seed', () => {
    expect(rowsTouched([jobRow('s'), log, cached('k')], 'f')).toEqual(new Set(['f', 's', 'result_cache:k']));
  });

  it('is undefined for a statement that names no rows, or for a row written twice', () => {
    expect(rowsTouched([jobRow('s'), wake], 'f')).toBeUndefined();
    expect(rowsTouched([cached('k'), cached('k')], 'f')).toBeUndefined();
    expect(rowsTouched([jobRow('f')], 'f')).toBeUndefined();
  });
});
