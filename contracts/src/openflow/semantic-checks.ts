import { visitModules, type VisitedModule } from './flow-walk.js';
import { agentStepRule } from './rules/agent-step.rule.js';
import { agentToolsRule } from './rules/agent-tools.rule.js';
import type { FlowIssue, FlowRule } from './rules/flow-rule.js';
import { groupsRule } from './rules/groups.rule.js';
import { specialModulesRule } from './rules/special-modules.rule.js';
import { staticInputsRule } from './rules/static-inputs.rule.js';
import { stopConditionsRule } from './rules/stop-conditions.rule.js';
import { uniqueIdsRule } from './rules/unique-ids.rule.js';

const RULES: readonly FlowRule[] = [
  uniqueIdsRule,
  specialModulesRule,
  stopConditionsRule,
  groupsRule,
  agentStepRule,
  agentToolsRule,
  staticInputsRule,
];

/**
 * The rules of the spec that a schema cannot express, run over the flow value as written (so
 * they report alongside schema errors, on a flow the schema rejected too).
 */
export function checkFlowRules(value: unknown, basePath: readonly PropertyKey[]): FlowIssue[] {
  const modules: VisitedModule[] = [];
  visitModules(value, basePath, (visited) => modules.push(visited));
  return RULES.flatMap((rule) => rule({ value, basePath, modules }));
}
