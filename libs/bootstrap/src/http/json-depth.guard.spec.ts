import { describe, expect, it } from 'vitest';
import { jsonDepth, MAX_JSON_DEPTH } from './json-depth.guard.js';

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { v: value };
  return value;
};

describe('jsonDepth', () => {
  it('counts containers, not scalars', () => {
    expect(jsonDepth(1)).toBe(0);
    expect(jsonDepth({})).toBe(1);
    expect(jsonDepth({ a: [1, { b: null }] })).toBe(3);
    expect(jsonDepth(nested(MAX_JSON_DEPTH))).toBe(MAX_JSON_DEPTH);
  });

  it('walks 100 000 levels without overflowing the stack, stopping past the limit', () => {
    expect(jsonDepth(nested(100_000))).toBe(MAX_JSON_DEPTH + 1);
  });
});
