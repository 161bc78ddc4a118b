import { describe, expect, it } from 'vitest';
import { sqlParams, sqlValues } from './sql-params.util.js';

describe('sqlParams', () => {
  it('reads Windmill declarations with defaults', () => {
    const content =
      "-- $2 age = 40\n-- $1 name\n-- $3 label = 'it''s'\n-- $4 flags = [1, 2]\nSELECT $1::text, $2::int;";
    expect(sqlParams(content)).toEqual([
      { position: 1, name: 'name', hasDefault: false },
      { position: 2, name: 'age', hasDefault: true, defaultValue: 40 },
      { position: 3, name: 'label', hasDefault: true, defaultValue: "it's" },
      { position: 4, name: 'flags', hasDefault: true, defaultValue: [1, 2] },
    ]);
  });

  it('binds values by name, then defaults, then null', () => {
    const params = sqlParams('-- $1 a\n-- $2 b = 5\n-- $4 d');
    expect(sqlValues(params, { d: 'x', a: "'; DROP TABLE t; --" })).toEqual([
      "'; DROP TABLE t; --",
      5,
      null,
      'x',
    ]);
  });
});
