import { Inject, Injectable } from '@nestjs/common';
import { EXPRESSION_SANDBOX, type ExpressionSandbox } from '../../ports/expression-sandbox.port.js';
import type { ExpressionScope } from './expression-scope.js';
import { referencedResults } from './referenced-results.js';
import { evaluateSimpleExpression, parseSimpleExpression } from './simple-expression.js';

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
    return this.sandbox.evaluate(expr, await this.context(expr, scope), { fieldPath });
  }

  /** `Boolean(value)` of the expression, as Windmill's stop/skip/branch predicates. */
  async predicate(expr: string, scope: ExpressionScope, fieldPath: string): Promise<boolean> {
    return Boolean(await this.evaluate(expr, scope, fieldPath));
  }

  private async simpleContext(
    simple: NonNullable<ReturnType<typeof parseSimpleExpression>>,
    scope: ExpressionScope,
  ): Promise<Record<string, unknown> | undefined> {
    if (simple.kind === 'literal') return {};
    if (simple.root === 'flow_input') return { flow_input: scope.flowInput };
    if (simple.root === 'results') {
      const first = simple.segments[0];
      if (!first || typeof first.key !== 'string') return undefined;
      const read = await scope.results.get(first.key);
      return { results: read.found ? { [first.key]: read.value } : {} };
    }
    if (Object.hasOwn(scope.vars, simple.root)) return { [simple.root]: scope.vars[simple.root] };
    return undefined;
  }

  private async context(expr: string, scope: ExpressionScope): Promise<Record<string, unknown>> {
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
    return { ...scope.vars, flow_input: scope.flowInput, results };
  }
}
