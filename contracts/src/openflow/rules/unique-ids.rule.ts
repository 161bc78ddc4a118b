import { formatJsonPath } from '../../errors.js';
import { type FlowIssue, type FlowRule, issueAt } from './flow-rule.js';

/** Module ids (agent tools included) name results and statuses, so each is used once in the whole flow. */
export const uniqueIdsRule: FlowRule = ({ modules }) => {
  const firstAt = new Map<string, string>();
  const issues: FlowIssue[] = [];
  for (const { module, path } of modules) {
    if (typeof module.id !== 'string') continue;
    const first = firstAt.get(module.id);
    if (first === undefined) firstAt.set(module.id, formatJsonPath([...path, 'id']));
    else issues.push(issueAt([...path, 'id'], `duplicate id "${module.id}"; already used at ${first}`));
  }
  return issues;
};
