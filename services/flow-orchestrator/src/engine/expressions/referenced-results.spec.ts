import { describe, expect, it } from 'vitest';
import { referencedResults } from './referenced-results.js';

describe('referencedResults', () => {
  it('lists the step ids an expression reads', () => {
    expect(referencedResults("results.a + results?.b + results['c-d']")).toEqual({
      ids: ['a', 'b', 'c-d'],
      all: false,
    });
  });

  it('asks for every result when results is used any other way', () => {
    expect(referencedResults('Object.keys(results).length').all).toBe(true);
    expect(referencedResults('results[flow_input.which]').all).toBe(true);
  });

  it('needs none when results is not read', () => {
    expect(referencedResults('flow_input.x')).toEqual({ ids: [], all: false });
  });
});
