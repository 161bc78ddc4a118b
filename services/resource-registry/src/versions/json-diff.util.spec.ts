import { describe, expect, it } from 'vitest';
import { diffJson, jsonEqual } from './json-diff.util.js';

describe('diffJson', () => {
  it('lists added, removed and changed paths in document order', () => {
    const from = {
      provider: { kind: 'openai', model: 'gpt-4o' },
      system_prompt: 'be brief',
      temperature: 0.2,
    };
    const to = {
      provider: { kind: 'openai', model: 'gpt-4.1' },
      system_prompt: 'be brief',
      max_iterations: 5,
    };
    expect(diffJson(from, to)).toEqual([
      { op: 'changed', path: 'provider.model', from: 'gpt-4o', to: 'gpt-4.1' },
      { op: 'removed', path: 'temperature', from: 0.2 },
      { op: 'added', path: 'max_iterations', to: 5 },
    ]);
  });

  it('compares arrays index by index and reports a longer or shorter list by its tail', () => {
    expect(diffJson({ tools: [{ id: 'a' }, { id: 'b' }] }, { tools: [{ id: 'a', summary: 's' }] })).toEqual([
      { op: 'added', path: 'tools[0].summary', to: 's' },
      { op: 'removed', path: 'tools[1]', from: { id: 'b' } },
    ]);
    expect(diffJson([1], [1, 2])).toEqual([{ op: 'added', path: '[1]', to: 2 }]);
  });

  it('reports a change of shape as one change at that path, and nothing for equal documents', () => {
    expect(diffJson({ a: { b: 1 } }, { a: [1] })).toEqual([
      { op: 'changed', path: 'a', from: { b: 1 }, to: [1] },
    ]);
    expect(diffJson('x', 'y')).toEqual([{ op: 'changed', path: '(root)', from: 'x', to: 'y' }]);
    expect(diffJson({ a: 1, b: [null] }, { b: [null], a: 1 })).toEqual([]);
  });

  it('quotes keys that are not identifiers', () => {
    expect(diffJson({ 'x-api': 1 }, { 'x-api': 2 })).toEqual([
      { op: 'changed', path: '["x-api"]', from: 1, to: 2 },
    ]);
  });
});

describe('jsonEqual', () => {
  it('ignores key order and tells null, missing and arrays apart', () => {
    expect(jsonEqual({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBe(true);
    expect(jsonEqual({ a: null }, {})).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({}, [])).toBe(false);
  });
});
