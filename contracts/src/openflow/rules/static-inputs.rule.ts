import { z } from 'zod';
import { AiAgentInputValueSchemas } from '../ai-agent-inputs.schema.js';
import {
  AI_DECISION_PROVIDER_KINDS,
  AiDecisionQuestionsSchema,
  AiDecisionStateSchema,
} from '../ai-decision.schema.js';
import { describeValue } from '../describe-value.js';
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

function checkDecisionInputs(inputs: Record<string, unknown>, path: readonly PropertyKey[]): FlowIssue[] {
  const issues = [
    ...checkStaticValue(inputs.state, [...path, 'state'], AiDecisionStateSchema),
    ...checkStaticValue(inputs.questions, [...path, 'questions'], AiDecisionQuestionsSchema),
  ];
  const provider = inputs.provider;
  if (isRecord(provider) && provider.type === 'static' && isRecord(provider.value)) {
    const kind = provider.value.kind;
    if (typeof kind === 'string' && !(AI_DECISION_PROVIDER_KINDS as readonly string[]).includes(kind))
      issues.push(
        issueAt(
          [...path, 'provider', 'value', 'kind'],
          `an aidecision step needs a decision model provider (${AI_DECISION_PROVIDER_KINDS.join(', ')}), got ${describeValue(kind)}`,
        ),
      );
  }
  return issues;
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
