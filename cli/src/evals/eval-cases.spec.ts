import { describe, expect, it } from 'vitest';
import { EvalCasesError, matches, parseEvalCases } from './eval-cases.js';

describe('eval cases', () => {
  it('reads JSON lines, naming each case by its name or line; match defaults to exact', () => {
    const text = '{"name":"a","args":{"x":1},"expected":2}\n\n{"expected":{"ok":true},"match":"subset"}\n';
    expect(parseEvalCases(text, 'cases.jsonl')).toEqual([
      { name: 'a', args: { x: 1 }, expected: 2, match: 'exact' },
      { name: 'line 3', args: {}, expected: { ok: true }, match: 'subset' },
    ]);
  });

  it('names every bad line with its number and field', () => {
    const text = 'nope\n{"args":[],"expected":1}\n{"args":{}}\n{"expected":1,"match":"fuzzy"}\n';
    expect(() => parseEvalCases(text, 'c.jsonl')).toThrow(EvalCasesError);
    const message = (() => {
      try {
        parseEvalCases(text, 'c.jsonl');
      } catch (error) {
        return (error as Error).message.split('\n');
      }
    })();
    expect(message?.map((line) => line.split(': ').slice(0, 2).join(': '))).toEqual([
      'c.jsonl:1: not a JSON object',
      'c.jsonl:2: args',
      'c.jsonl:3: expected',
      'c.jsonl:4: match',
    ]);
  });

  it('exact is deep equality; subset asks every field and item of the expected value', () => {
    const result = { output: { intent: { choice: 'refund', confidence: 0.8 } }, tags: ['a', 'b'] };
    expect(matches(result, { ...result }, 'exact')).toBe(true);
    expect(matches(result, { output: { intent: { choice: 'refund' } } }, 'exact')).toBe(false);
    expect(matches(result, { output: { intent: { choice: 'refund' } } }, 'subset')).toBe(true);
    expect(matches(result, { output: { intent: { choice: 'bug' } } }, 'subset')).toBe(false);
    expect(matches(result, { tags: ['a'] }, 'subset')).toBe(false);
    expect(matches(result, { missing: null }, 'subset')).toBe(false);
  });
});
