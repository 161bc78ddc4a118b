/**
 * Evaluates the JavaScript expressions of a flow (input transforms, `skip_if`, `stop_after_if`,
 * branch `expr`, iterators, `early_return`, `retry_if`, concurrency and debounce keys) with no
 * host access, under a time and a memory limit. Implemented in `sandbox/` (quickjs-emscripten).
 */
export interface ExpressionOptions {
  /**
   * Where the expression sits in the flow, named in every error:
   * `value.modules[2].value.input_transforms.x.expr`, `value.modules[0].skip_if.expr`.
   */
  readonly fieldPath: string;
  /** Wall-clock limit of one evaluation (default: the sandbox's configured limit). */
  readonly timeoutMs?: number;
  /** Heap limit of one evaluation (default: the sandbox's configured limit). */
  readonly memoryBytes?: number;
}

/**
 * The variables an expression sees, by name: `flow_input`, `results`, `previous_result`,
 * `result`, `error`, `resume`, `resumes`, `approvers`, `flow_env`, `params`, ... Values are
 * plain JSON (the engine passes only the results an expression reads when it can tell).
 */
export type ExpressionContext = Readonly<Record<string, unknown>>;

export interface ExpressionSandbox {
  /**
   * The value of `expr` (an expression, or a body of statements ending in an expression, as
   * Windmill accepts), as JSON. A promise is awaited. Rejects with an `ExpressionError` naming
   * `options.fieldPath` when the expression throws, does not parse, runs out of time or memory,
   * or returns something that is not JSON (functions, symbols).
   */
  evaluate(expr: string, context: ExpressionContext, options: ExpressionOptions): Promise<unknown>;
}

export const EXPRESSION_SANDBOX = Symbol('EXPRESSION_SANDBOX');

export type ExpressionFailure = 'error' | 'syntax' | 'timeout' | 'memory' | 'result';

/** An expression failed; the message starts with the field path: `value.modules[0].skip_if.expr: x is not defined`. */
export class ExpressionError extends Error {
  constructor(
    readonly fieldPath: string,
    readonly reason: string,
    readonly failure: ExpressionFailure = 'error',
  ) {
    super(`${fieldPath}: ${reason}`);
    this.name = 'ExpressionError';
  }
}
