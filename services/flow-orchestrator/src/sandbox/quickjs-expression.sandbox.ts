import { availableParallelism } from 'node:os';
import {
  ExpressionError,
  type ExpressionContext,
  type ExpressionOptions,
  type ExpressionSandbox,
} from '../ports/expression-sandbox.port.js';
import { ExpressionThreadPool } from './expression-thread.pool.js';
import type { ContextPieces } from './quickjs-evaluator.js';

export interface ExpressionSandboxLimits {
  /** Wall-clock budget of one evaluation, including its promise jobs. */
  readonly timeoutMs: number;
  /** Heap of one evaluation's QuickJS runtime. */
  readonly memoryBytes: number;
  /** Stack of one evaluation; deep recursion stops here instead of crashing anything. */
  readonly stackBytes: number;
  /** Sandbox threads evaluating at once. */
  readonly threads: number;
}

export const DEFAULT_EXPRESSION_LIMITS: ExpressionSandboxLimits = {
  timeoutMs: 1_000,
  memoryBytes: 32 * 1024 * 1024,
  stackBytes: 512 * 1024,
  threads: Math.min(2, availableParallelism()),
};

/**
 * Evaluates OpenFlow JavaScript expressions (transforms, `skip_if`, branch `expr`, iterators,
 * ...) in QuickJS compiled to WebAssembly, in sandbox threads. The guest sees only its
 * context, copied in as JSON; it has no host object, module, timer or network to reach.
 * Each evaluation gets a new QuickJS runtime and context, so nothing leaks between them.
 */
export class QuickJsExpressionSandbox implements ExpressionSandbox {
  private readonly limits: ExpressionSandboxLimits;
  private readonly pool: ExpressionThreadPool;

  constructor(limits: Partial<ExpressionSandboxLimits> = {}) {
    this.limits = { ...DEFAULT_EXPRESSION_LIMITS, ...limits };
    this.pool = new ExpressionThreadPool(this.limits.threads);
  }

  /** Starts the sandbox threads, so the first flow does not wait for them. */
  warmUp(): void {
    this.pool.start();
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  /** Nest calls this on shutdown when the sandbox is a provider. */
  onModuleDestroy(): Promise<void> {
    return this.close();
  }

  async evaluate(expr: string, context: ExpressionContext, options: ExpressionOptions): Promise<unknown> {
    const outcome = await this.pool.run({
      expr,
      context: toPieces(context, options.fieldPath),
      timeoutMs: options.timeoutMs ?? this.limits.timeoutMs,
      memoryBytes: options.memoryBytes ?? this.limits.memoryBytes,
      stackBytes: this.limits.stackBytes,
    });
    if (!outcome.ok) throw new ExpressionError(options.fieldPath, outcome.reason, outcome.failure);
    return outcome.json === undefined ? undefined : (JSON.parse(outcome.json) as unknown);
  }
}

/** The context as the JSON texts the guest loads on demand; plain objects key by key. */
function toPieces(context: ExpressionContext, fieldPath: string): ContextPieces {
  const values = new Map<string, string>();
  const objects = new Map<string, Map<string, string>>();
  const json = (value: unknown, what: string): string => {
    try {
      return JSON.stringify(value) ?? '';
    } catch (error) {
      throw new ExpressionError(fieldPath, `ContextError: ${what} is not JSON: ${(error as Error).message}`);
    }
  };
  for (const [name, value] of Object.entries(context)) {
    if (isPlainObject(value)) {
      objects.set(
        name,
        new Map(Object.entries(value).map(([key, item]) => [key, json(item, `${name}.${key}`)])),
      );
    } else {
      values.set(name, json(value, name));
    }
  }
  return { values, objects };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
