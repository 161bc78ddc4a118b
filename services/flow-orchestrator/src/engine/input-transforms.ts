import type { InputTransform } from '@flowmesh/contracts';
import type { ExpressionEvaluator } from './expressions/expression.evaluator.js';
import { withVars, type ExpressionScope } from './expressions/expression-scope.js';

/**
 * A step's arguments from its input transforms: static values as written, JavaScript
 * expressions evaluated (each sees the arguments mapped before it as `params`), `ai` inputs left
 * to the agent runtime. An expression returning undefined leaves its argument out, as
 * JSON.stringify would.
 */
export async function evaluateInputTransforms(
  evaluator: ExpressionEvaluator,
  transforms: Readonly<Record<string, InputTransform>> | undefined,
  scope: ExpressionScope,
  fieldPath: string,
): Promise<Record<string, unknown>> {
  const args: Record<string, unknown> = {};
  for (const [name, transform] of Object.entries(transforms ?? {})) {
    const value = await evaluateTransform(
      evaluator,
      transform,
      withVars(scope, { params: args }),
      `${fieldPath}.${name}`,
    );
    if (value !== undefined) args[name] = value;
  }
  return args;
}

/**
 * One transform's value; `fieldPath` names the transform (`...input_transforms.x`). A plain
 * number (the older spelling of `timeout` and `parallelism`) is its own value.
 */
export async function evaluateTransform(
  evaluator: ExpressionEvaluator,
  transform: InputTransform | number,
  scope: ExpressionScope,
  fieldPath: string,
): Promise<unknown> {
  if (typeof transform === 'number') return transform;
  if (transform.type === 'static') return transform.value === undefined ? undefined : transform.value;
  if (transform.type === 'javascript') return evaluator.evaluate(transform.expr, scope, `${fieldPath}.expr`);
  return undefined;
}

/**
 * The arguments of a loop iteration: the flow's input plus `iter`. An `iter` already there (a
 * loop in a loop) moves to `iter_parent` (and so on), as Windmill does.
 */
export function withIter(
  flowInput: Record<string, unknown>,
  iter: { index: number; value: unknown },
): Record<string, unknown> {
  const args = { ...flowInput };
  let key = 'iter';
  let carried: unknown = iter;
  while (Object.hasOwn(args, key)) {
    const previous = args[key];
    args[key] = carried;
    carried = previous;
    key = `${key}_parent`;
  }
  args[key] = carried;
  return args;
}
