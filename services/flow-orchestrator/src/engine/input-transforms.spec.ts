import { describe, expect, it } from 'vitest';
import { withIter } from './input-transforms.js';

describe('withIter', () => {
  it('adds iter to the flow input', () => {
    expect(withIter({ a: 1 }, { index: 0, value: 'x' })).toEqual({ a: 1, iter: { index: 0, value: 'x' } });
  });

  it("moves an outer loop's iter to iter_parent, and that one further up", () => {
    const outer = withIter({}, { index: 1, value: 'o' });
    const inner = withIter(outer, { index: 2, value: 'i' });
    expect(inner).toEqual({ iter: { index: 2, value: 'i' }, iter_parent: { index: 1, value: 'o' } });
    const innermost = withIter(inner, { index: 3, value: 'z' });
    expect(innermost).toEqual({
      iter: { index: 3, value: 'z' },
      iter_parent: { index: 2, value: 'i' },
      iter_parent_parent: { index: 1, value: 'o' },
    });
  });
});
