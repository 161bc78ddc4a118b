import { isRecord } from '../flow-walk.js';
import { type FlowIssue, type FlowRule, issueAt } from './flow-rule.js';

/** A group spans the modules between two modules of the flow, so both ends must exist. */
export const groupsRule: FlowRule = ({ value, basePath, modules }) => {
  if (!isRecord(value) || !Array.isArray(value.groups)) return [];
  const ids = new Set(modules.filter((m) => m.role !== 'tool').map((m) => m.module.id));
  const issues: FlowIssue[] = [];
  value.groups.forEach((group, index) => {
    if (!isRecord(group)) return;
    for (const end of ['start_id', 'end_id'] as const) {
      const id = group[end];
      if (typeof id === 'string' && !ids.has(id))
        issues.push(issueAt([...basePath, 'groups', index, end], `no module with id "${id}" in this flow`));
    }
  });
  return issues;
};
