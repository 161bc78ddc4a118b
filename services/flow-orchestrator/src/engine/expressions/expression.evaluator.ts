import { Inject, Injectable } from '@nestjs/common';
import { ITEMS_CONTEXT_KEY } from '../../ports/expression-items.port.js';
import {
  EXPRESSION_SANDBOX,
  ExpressionError,
  type ExpressionSandbox,
} from '../../ports/expression-sandbox.port.js';
import type { ExpressionScope } from './expression-scope.js';
import { itemCalls } from './item-calls.js';
import { referencedResults } from './referenced-results.js';
import {
  evaluateSimpleExpression,
  parseSimpleExpression,
  simpleRoots,
  type SimpleExpression,
} from './simple-expression.js';

/**
 * Evaluates a flow's expressions: a plain path or literal in the host, anything else in the
 * sandbox with a context holding only the results the expression reads.
 */
@Injectable()
export class ExpressionEvaluator {
  constructor(@Inject(EXPRESSION_SANDBOX) private readonly sandbox: ExpressionSandbox) {}

  async evaluate(expr: string, scope: ExpressionScope, fieldPath: string): Promise<unknown> {
    const simple = parseSimpleExpression(expr);
    if (simple) {
      const context = await this.simpleContext(simple, scope);
      const answer = context && evaluateSimpleExpression(simple, context);
      if (answer) return answer.value;
    }
    return this.sandbox.evaluate(expr, await this.context(expr, scope, fieldPath), { fieldPath });
  }

  /** `Boolean(value)` of the expression, as Windmill's stop/skip/branch predicates. */
  async predicate(expr: string, scope: ExpressionScope, fieldPath: string): Promise<boolean> {
    return Boolean(await this.evaluate(expr, scope, fieldPath));
  }

  private async simpleContext(
    simple: SimpleExpression,
    scope: ExpressionScope,
  ): Promise<Record<string, unknown> | undefined> {
    const context: Record<string, unknown> = {};
    const results: Record<string, unknown> = {};
    for (const operand of simpleRoots(simple)) {
      if (operand.kind === 'literal') continue;
      if (operand.root === 'flow_input') context.flow_input = scope.flowInput;
      else if (operand.root === 'results') {
        const first = operand.segments[0];
        if (!first || typeof first.key !== 'string') return undefined;
        const read = await scope.results.get(first.key);
        if (read.found) results[first.key] = read.value;
        context.results = results;
      } else if (Object.hasOwn(scope.vars, operand.root)) context[operand.root] = scope.vars[operand.root];
      else return undefined;
    }
    return context;
  }

  private async context(
    expr: string,
    scope: ExpressionScope,
    fieldPath: string,
  ): Promise<Record<string, unknown>> {
    const references = referencedResults(expr);
    let results: Record<string, unknown> = {};
    if (references.all) {
      results = await scope.results.all();
    } else {
      for (const id of references.ids) {
        const read = await scope.results.get(id);
        if (read.found) results[id] = read.value;
      }
    }
    const context: Record<string, unknown> = { ...scope.vars, flow_input: scope.flowInput, results };
    const calls = scope.items ? itemCalls(expr) : undefined;
    if (calls) {
      const items: Record<string, unknown> = {};
      for (const { kind, path } of calls) {
        try {
          items[`${kind}:${path}`] = await scope.items!(kind, path);
        } catch (error) {
          // What the run may not read fails the expression (the step), never the engine.
          const name = kind === 'var' ? 'variable' : 'resource';
          throw new ExpressionError(
            fieldPath,
            `${name}(${JSON.stringify(path)}): ${(error as Error).message}`,
          );
        }
      }
      context[ITEMS_CONTEXT_KEY] = items;
    }
    return context;
  }
}
