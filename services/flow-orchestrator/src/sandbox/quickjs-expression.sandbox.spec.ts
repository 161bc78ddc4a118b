import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExpressionError } from '../ports/expression-sandbox.port.js';
import { QuickJsExpressionSandbox } from './quickjs-expression.sandbox.js';

const sandbox = new QuickJsExpressionSandbox({
  timeoutMs: 200,
  memoryBytes: 8 * 1024 * 1024,
  stackBytes: 256 * 1024,
  threads: 1,
});
const at = (fieldPath: string) => ({ fieldPath });

const MEMORY_BOMB = '(() => { const a = []; for (let i = 0; ; i++) a.push({ i, s: "k" + i }) })()';

async function failure(
  expr: string,
  context: Record<string, unknown> = {},
  fieldPath = 'value.modules[0].expr',
  timeoutMs?: number,
) {
  const error: unknown = await sandbox.evaluate(expr, context, { fieldPath, timeoutMs }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ExpressionError);
  return error as ExpressionError;
}

beforeAll(() => {
  sandbox.warmUp();
});

afterAll(async () => {
  await sandbox.close();
});

describe('QuickJsExpressionSandbox: values', () => {
  it('reads flow_input, results of every prior step and previous_result', async () => {
    const context = {
      flow_input: { n: 2, iter: { value: 'x', index: 3 } },
      results: { a: { rows: [1, 2] }, b: 'hi' },
      previous_result: 7,
    };
    await expect(
      sandbox.evaluate(
        '[flow_input.n + previous_result, results.a.rows[1], results.b, flow_input.iter.value, flow_input.iter.index]',
        context,
        at('x'),
      ),
    ).resolves.toEqual([9, 2, 'hi', 'x', 3]);
  });

  it('lists, spreads and serializes the lazy objects like plain ones', async () => {
    const context = { results: { a: 1, b: { c: [true] } } };
    await expect(
      sandbox.evaluate(
        '[Object.keys(results), "a" in results, "z" in results, {...results}, JSON.stringify(results)]',
        context,
        at('x'),
      ),
    ).resolves.toEqual([['a', 'b'], true, false, { a: 1, b: { c: [true] } }, '{"a":1,"b":{"c":[true]}}']);
    await expect(sandbox.evaluate('results.missing', context, at('x'))).resolves.toBeUndefined();
    await expect(sandbox.evaluate('typeof results.hasOwnProperty', context, at('x'))).resolves.toBe(
      'function',
    );
  });

  it('reads big values (parsed only when read) like small ones', async () => {
    const big = Array.from({ length: 500 }, (_, i) => ({ i }));
    const context = { results: { big, small: 1 }, flow_input: { items: big, n: 2 }, resumes: big };
    await expect(
      sandbox.evaluate(
        '[results.big.length, results.big[499].i, Object.keys(results), flow_input.items.length, flow_input.n, resumes[1].i, JSON.stringify(results).length]',
        context,
        at('x'),
      ),
    ).resolves.toEqual([500, 499, ['small', 'big'], 500, 2, 1, JSON.stringify({ small: 1, big }).length]);
    await expect(sandbox.evaluate('results.big = 1; return results.big', context, at('x'))).resolves.toBe(1);
  });

  it('accepts a function body with return, and await', async () => {
    await expect(
      sandbox.evaluate('const a = flow_input.x * 2;\nreturn a + 1', { flow_input: { x: 4 } }, at('x')),
    ).resolves.toBe(9);
    await expect(sandbox.evaluate('await Promise.resolve(5)', {}, at('x'))).resolves.toBe(5);
    await expect(
      sandbox.evaluate('flow_input.x // trailing comment', { flow_input: { x: 1 } }, at('x')),
    ).resolves.toBe(1);
  });

  it('returns undefined for undefined, null for null, and drops functions inside values as JSON does', async () => {
    await expect(sandbox.evaluate('undefined', {}, at('x'))).resolves.toBeUndefined();
    await expect(sandbox.evaluate('({ f() {}, a: [() => 1] })', {}, at('x'))).resolves.toEqual({ a: [null] });
    await expect(sandbox.evaluate('null', {}, at('x'))).resolves.toBeNull();
  });

  it('sees context names holding arrays, strings and undefined', async () => {
    const context = { resumes: [{ ok: true }], error: undefined, params: 'p' };
    await expect(
      sandbox.evaluate('[resumes[0].ok, typeof error, params]', context, at('x')),
    ).resolves.toEqual([true, 'undefined', 'p']);
  });
});

describe('QuickJsExpressionSandbox: errors name the field path', () => {
  it('reports a ReferenceError with the path', async () => {
    const error = await failure('foo + 1', {}, 'value.modules[1].value.iterator.expr');
    expect(error.message).toBe('value.modules[1].value.iterator.expr: ReferenceError: foo is not defined');
    expect(error.fieldPath).toBe('value.modules[1].value.iterator.expr');
    expect(error.failure).toBe('error');
  });

  it('reports a thrown value and a rejected promise', async () => {
    expect((await failure('(() => { throw new TypeError("bad input") })()')).message).toBe(
      'value.modules[0].expr: TypeError: bad input',
    );
    expect((await failure('await Promise.reject(new RangeError("nope"))')).message).toBe(
      'value.modules[0].expr: RangeError: nope',
    );
    expect((await failure('(() => { throw "plain" })()')).message).toBe(
      'value.modules[0].expr: Error: plain',
    );
  });

  it('reports a syntax error', async () => {
    const error = await failure('flow_input.(');
    expect(error.failure).toBe('syntax');
    expect(error.message.startsWith('value.modules[0].expr: SyntaxError: ')).toBe(true);
  });

  it('reports a value that cannot become JSON', async () => {
    const error = await failure('(() => { const a = {}; a.a = a; return a })()');
    expect(error.failure).toBe('result');
    expect(error.message).toMatch(/^value\.modules\[0\]\.expr: ResultError: the value is not JSON: /);
    expect((await failure('() => 1')).message).toBe(
      'value.modules[0].expr: ResultError: the value is not JSON: a function is not JSON',
    );
    expect((await failure('Symbol("s")')).failure).toBe('result');
  });
});

describe('QuickJsExpressionSandbox: containment', () => {
  it('stops an infinite loop at the time limit', async () => {
    const started = performance.now();
    const error = await failure('(() => { while (true) {} })()');
    expect(error.failure).toBe('timeout');
    expect(error.message).toBe(
      'value.modules[0].expr: TimeoutError: the expression did not finish within 200 ms',
    );
    // Stopped, not hung: how soon on a loaded machine is the timer's business, not this test's.
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('stops a loop of expensive builtin calls, which the interrupt handler alone cannot, and recovers', async () => {
    const started = performance.now();
    const error = await failure('(() => { for (;;) "x".repeat(1e6) })()');
    expect(error.failure).toBe('timeout');
    expect(error.message).toBe(
      'value.modules[0].expr: TimeoutError: the expression did not finish within 200 ms',
    );
    expect(performance.now() - started).toBeLessThan(20_000);
    await expect(sandbox.evaluate('flow_input.a * 3', { flow_input: { a: 2 } }, at('x'))).resolves.toBe(6);
  });

  it('stops a promise that never settles', async () => {
    const error = await failure('new Promise(() => {})');
    expect(error.message).toBe(
      'value.modules[0].expr: Error: the expression awaits a promise that never settles',
    );
  });

  it('stops a promise-job loop at the time limit', async () => {
    const error = await failure('await (async function spin() { for (;;) await null })()');
    expect(error.failure).toBe('timeout');
  });

  it('honours a per-call time limit', async () => {
    const error: unknown = await sandbox
      .evaluate('(() => { for (;;) {} })()', {}, { fieldPath: 'f', timeoutMs: 20 })
      .catch((e: unknown) => e);
    expect((error as ExpressionError).message).toBe(
      'f: TimeoutError: the expression did not finish within 20 ms',
    );
  });

  it('stops a memory bomb at the memory limit', async () => {
    // A generous time limit: this machine may be busy, and the memory limit must bite first.
    const error = await failure(MEMORY_BOMB, {}, 'value.modules[0].expr', 10_000);
    expect(error.failure).toBe('memory');
    expect(error.message).toBe(
      'value.modules[0].expr: MemoryLimitError: the expression exceeded its memory limit of 8 MiB',
    );
  });

  it('stops a single huge allocation', async () => {
    const error = await failure('"x".repeat(2 ** 28).length');
    expect(['memory', 'error']).toContain(error.failure);
    expect(error.message.startsWith('value.modules[0].expr: ')).toBe(true);
  });

  it('stops deep recursion', async () => {
    const error = await failure('(function f(n) { return f(n + 1) + 1 })(0)');
    expect(error.failure).toBe('memory');
    expect(error.message).toBe(
      'value.modules[0].expr: StackOverflowError: the expression exceeded its stack limit of 256 KiB',
    );
  });

  it('keeps working after each kind of failure', async () => {
    await failure('(() => { while (true) {} })()');
    await failure(MEMORY_BOMB, {}, 'value.modules[0].expr', 10_000);
    await failure('(function f() { f() })()');
    await expect(sandbox.evaluate('1 + 1', {}, at('x'))).resolves.toBe(2);
  });

  it('offers no host access', async () => {
    await expect(
      sandbox.evaluate(
        '[typeof require, typeof process, typeof fetch, typeof setTimeout, typeof setInterval, typeof module, typeof Deno, typeof XMLHttpRequest, typeof WebAssembly, typeof std, typeof os]',
        {},
        at('x'),
      ),
    ).resolves.toEqual(Array(11).fill('undefined'));
  });

  it('constructor.constructor reaches only the guest realm', async () => {
    const probes = [
      'this.constructor.constructor("return typeof process")()',
      '(() => {}).constructor("return typeof require")()',
      'results.constructor.constructor("return typeof globalThis.process")()',
      'Object.getPrototypeOf(async function(){}).constructor("return typeof fetch")() instanceof Promise',
      'flow_input.constructor.constructor("return Object.keys(globalThis).sort().join()")()',
    ];
    const out = await Promise.all(
      probes.map((expr) => sandbox.evaluate(expr, { results: { a: 1 }, flow_input: { b: 2 } }, at('x'))),
    );
    expect(out).toEqual(['undefined', 'undefined', 'undefined', true, 'flow_input,results']);
  });

  it('probing this and globalThis finds only the context', async () => {
    await expect(
      sandbox.evaluate(
        '[typeof this, Object.getOwnPropertyNames(globalThis).filter((n) => !/^[A-Z]/.test(n)).sort().join()]',
        { flow_input: {}, previous_result: 1 },
        at('x'),
      ),
    ).resolves.toEqual([
      'object',
      expect.not.stringMatching(/require|process|fetch|setTimeout|console|std|os/) as unknown,
    ]);
  });

  it('prototype pollution and globals stay inside one evaluation', async () => {
    const context = { flow_input: { a: 1 } };
    await sandbox.evaluate(
      'Object.prototype.polluted = 1; Array.prototype.push = null; globalThis.leak = 2; JSON.parse = null; return 0',
      context,
      at('x'),
    );
    await expect(
      sandbox.evaluate(
        '[typeof ({}).polluted, typeof [].push, typeof leak, typeof JSON.parse, flow_input.a]',
        context,
        at('x'),
      ),
    ).resolves.toEqual(['undefined', 'function', 'undefined', 'function', 1]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(typeof [].push).toBe('function');
  });

  it('an expression cannot change the host context', async () => {
    const context = { flow_input: { a: 1 }, results: { s: { n: 1 } } };
    await sandbox.evaluate(
      'flow_input.a = 99; results.s.n = 5; delete results.s; return 1',
      context,
      at('x'),
    );
    expect(context).toEqual({ flow_input: { a: 1 }, results: { s: { n: 1 } } });
  });

  it('overwriting JSON inside the expression does not break the result handling', async () => {
    await expect(
      sandbox.evaluate(
        'JSON.stringify = () => "evil"; JSON.parse = () => 1; return [results.a]',
        { results: { a: 'ok' } },
        at('x'),
      ),
    ).resolves.toEqual(['ok']);
  });
});
