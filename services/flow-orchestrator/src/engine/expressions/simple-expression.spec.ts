import { describe, expect, it } from 'vitest';
import { evaluateSimpleExpression, parseSimpleExpression } from './simple-expression.js';

const run = (expr: string, context: Record<string, unknown>) => {
  const parsed = parseSimpleExpression(expr);
  return parsed ? evaluateSimpleExpression(parsed, context) : undefined;
};

describe('simple expressions', () => {
  it('reads paths of own properties and array items', () => {
    const context = { flow_input: { a: { b: [10, { c: 'x' }] } }, results: { s1: 5 } };
    expect(run('flow_input.a.b[1].c', context)).toEqual({ value: 'x' });
    expect(run("flow_input['a'].b[0]", context)).toEqual({ value: 10 });
    expect(run('results.s1', context)).toEqual({ value: 5 });
    expect(run('flow_input.a.b.length', context)).toEqual({ value: 2 });
    expect(run('flow_input.missing', context)).toEqual({ value: undefined });
    expect(run('flow_input.missing?.deeper', context)).toEqual({ value: undefined });
  });

  it('reads literals', () => {
    expect(run('42', {})).toEqual({ value: 42 });
    expect(run("'text'", {})).toEqual({ value: 'text' });
    expect(run('null', {})).toEqual({ value: null });
  });

  it('adds strings and numbers as JavaScript does', () => {
    const context = { flow_input: { n: 2, s: 'x' }, results: { a: 1.5 } };
    expect(run("'iter' + flow_input.n", context)).toEqual({ value: 'iter2' });
    expect(run('flow_input.n + results.a + 1', context)).toEqual({ value: 4.5 });
    expect(run("flow_input.n + 1 + flow_input.s + 'a+b'", context)).toEqual({ value: '3xa+b' });
    // null, booleans and objects coerce in ways left to the sandbox; so do missing values.
    expect(run('flow_input.s + flow_input.missing', context)).toBeUndefined();
    expect(run('flow_input + 1', context)).toBeUndefined();
    expect(parseSimpleExpression('flow_input.n++')).toBeUndefined();
  });

  it('builds array literals of such terms', () => {
    const context = { results: { s2: 10 }, flow_input: { name: 'x' } };
    expect(run('[results.s2, results.s2 + 1, results.s2 + 2]', context)).toEqual({ value: [10, 11, 12] });
    expect(run("['a', flow_input.name]", context)).toEqual({ value: ['a', 'x'] });
    expect(run('[]', context)).toEqual({ value: [] });
    expect(run('[flow_input.missing]', context)).toBeUndefined();
    expect(parseSimpleExpression('[flow_input.a.map(f)]')).toBeUndefined();
  });

  it('leaves to the sandbox what it cannot answer exactly as JavaScript would', () => {
    const context = { flow_input: { a: null } };
    // A TypeError, phrased by the sandbox.
    expect(run('flow_input.a.b', context)).toBeUndefined();
    // Prototype members and unknown roots.
    expect(run('flow_input.constructor', context)).toBeUndefined();
    expect(run('process.env', context)).toBeUndefined();
    // Anything that is not a plain path.
    expect(parseSimpleExpression('flow_input.a * 2')).toBeUndefined();
    expect(parseSimpleExpression('flow_input.f()')).toBeUndefined();
  });
});
