import { describe, expect, it } from 'vitest';
import { itemCalls } from './item-calls.js';

describe('itemCalls', () => {
  it('finds each variable() and resource() call with a literal path once, in any quotes', () => {
    expect(
      itemCalls(
        `(await variable('f/a/key')) + (await variable("f/a/key")) + (await resource(\`f/a/db\`)).url`,
      ),
    ).toEqual([
      { kind: 'var', path: 'f/a/key' },
      { kind: 'res', path: 'f/a/db' },
    ]);
  });

  it('is undefined for an expression that calls neither, empty for one that computes its path', () => {
    expect(itemCalls('flow_input.variable + results.resource')).toBeUndefined();
    expect(itemCalls("await variable('f/a/' + name)")).toEqual([]);
  });
});
