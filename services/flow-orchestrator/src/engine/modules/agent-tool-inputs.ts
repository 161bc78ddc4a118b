import type { AiAgent, EvaluatedToolInput, InputTransform } from '@flowmesh/contracts';
import type { ExpressionEvaluator } from '../expressions/expression.evaluator.js';
import type { ExpressionScope } from '../expressions/expression-scope.js';
import { evaluateTransform } from '../input-transforms.js';

export type EvaluatedToolInputs = Record<string, Record<string, EvaluatedToolInput>>;

/**
 * The `javascript` inputs of an agent step's tools, evaluated in the step's flow scope: those of
 * its tools (inline, or its linked agent's), and the step's `tool_inputs` (which bind a tool to
 * this flow) over them. An expression that fails is kept as its error, not thrown: a tool the model
 * never calls must not fail the step, as a tool's own `$res:` default is only read when it runs.
 */
export async function evaluateToolInputs(
  evaluator: ExpressionEvaluator,
  step: AiAgent,
  scope: ExpressionScope,
  /** Where the tools and the step's `tool_inputs` are written, for error messages. */
  fields: { readonly tools: string; readonly toolInputs: string },
): Promise<EvaluatedToolInputs> {
  const evaluated: EvaluatedToolInputs = {};
  const evaluate = async (toolId: string, name: string, transform: InputTransform, field: string) => {
    if (transform.type !== 'javascript') return;
    let input: EvaluatedToolInput;
    try {
      const value = await evaluateTransform(evaluator, transform, scope, field);
      input = value === undefined ? {} : { value };
    } catch (error) {
      input = { error: error instanceof Error ? error.message : String(error) };
    }
    (evaluated[toolId] ??= {})[name] = input;
  };
  const overrides = step.tool_inputs ?? {};
  for (const [index, tool] of (step.tools ?? []).entries()) {
    const value = tool.value as {
      input_transforms?: Record<string, InputTransform>;
      iterator?: InputTransform;
    };
    for (const [name, transform] of Object.entries(value.input_transforms ?? {})) {
      if (overrides[tool.id]?.[name]) continue;
      await evaluate(
        tool.id,
        name,
        transform,
        `${fields.tools}.tools[${index}].value.input_transforms.${name}`,
      );
    }
    // A loop tool's iterator is one of its inputs.
    if (value.iterator && !overrides[tool.id]?.iterator)
      await evaluate(tool.id, 'iterator', value.iterator, `${fields.tools}.tools[${index}].value.iterator`);
  }
  for (const [toolId, inputs] of Object.entries(overrides)) {
    for (const [name, transform] of Object.entries(inputs)) {
      await evaluate(toolId, name, transform, `${fields.toolInputs}.tool_inputs.${toolId}.${name}`);
    }
  }
  return evaluated;
}
