import { z } from 'zod';
import { AiAgentInputValueSchemas } from '../ai-agent-inputs.schema.js';
import {
  AiDecisionProviderSchema,
  AiDecisionQuestionsSchema,
  AiDecisionStateSchema,
  decisionValueIssues,
} from '../ai-decision.schema.js';
import { isRecord } from '../flow-walk.js';
import { type FlowIssue, type FlowRule, checkStaticValue, issueAt, moduleValue } from './flow-rule.js';

const Seconds = z.number().min(0);
const Parallelism = z.int().min(1);
const Iterable = z.array(z.unknown());
const Groups = z.array(z.string());

function checkAgentInputs(inputs: Record<string, unknown>, path: readonly PropertyKey[]): FlowIssue[] {
  return Object.entries(AiAgentInputValueSchemas).flatMap(([name, schema]) =>
    checkStaticValue(inputs[name], [...path, name], schema),
  );
}

/** A decision's static inputs, each rule as the step checks it before its call. */
function checkDecisionInputs(inputs: Record<string, unknown>, path: readonly PropertyKey[]): FlowIssue[] {
  const schemas = {
    provider: AiDecisionProviderSchema,
    state: AiDecisionStateSchema,
    questions: AiDecisionQuestionsSchema,
  } as const;
  return (Object.keys(schemas) as (keyof typeof schemas)[]).flatMap((name) => {
    const transform = inputs[name];
    if (!isRecord(transform) || transform.type !== 'static') return [];
    return decisionValueIssues(name, transform.value, schemas[name]).map(({ path: where, message }) =>
      issueAt([...path, name, 'value', ...where.slice(1)], message),
    );
  });
}

/**
 * Inputs are transforms, so the schema types them only as transforms; a static one is known
 * now, and its value must be what the input expects (seconds, an array to iterate, a
 * temperature between 0 and 2, ...).
 */
export const staticInputsRule: FlowRule = ({ modules }) => {
  const issues: FlowIssue[] = [];
  for (const { module, path, role } of modules) {
    if (role !== 'tool') {
      issues.push(...checkStaticValue(module.sleep, [...path, 'sleep'], Seconds));
      issues.push(...checkStaticValue(module.timeout, [...path, 'timeout'], Seconds));
      if (isRecord(module.suspend))
        issues.push(
          ...checkStaticValue(
            module.suspend.user_groups_required,
            [...path, 'suspend', 'user_groups_required'],
            Groups,
          ),
        );
    }
    const value = moduleValue(module);
    const valuePath = [...path, 'value'];
    if (value.type === 'forloopflow')
      issues.push(...checkStaticValue(value.iterator, [...valuePath, 'iterator'], Iterable));
    if (value.type === 'forloopflow' || value.type === 'whileloopflow')
      issues.push(...checkStaticValue(value.parallelism, [...valuePath, 'parallelism'], Parallelism));
    if (!isRecord(value.input_transforms)) continue;
    const inputsPath = [...valuePath, 'input_transforms'];
    if (value.type === 'aiagent') issues.push(...checkAgentInputs(value.input_transforms, inputsPath));
    if (value.type === 'aidecision') issues.push(...checkDecisionInputs(value.input_transforms, inputsPath));
  }
  return issues;
};
