import { formatJsonPath } from '../../errors.js';
import { WEB_SEARCH_TOOL_NAME } from '../agent-tool-values.schema.js';
import { isRecord } from '../flow-walk.js';
import { type FlowIssue, type FlowRule, issueAt, moduleValue } from './flow-rule.js';

const TOOL_NAME = /^[a-zA-Z0-9_]+$/;

/**
 * The model calls a flowmodule tool by its summary, so the summary is a tool name: set,
 * letters, digits and underscores only, unique within the agent, never the reserved name of
 * the websearch tool.
 */
export const agentToolsRule: FlowRule = ({ modules }) => {
  const issues: FlowIssue[] = [];
  for (const { module, path } of modules) {
    const value = moduleValue(module);
    if (value.type !== 'aiagent' || !Array.isArray(value.tools)) continue;
    const named = new Map<string, string>();
    value.tools.forEach((tool, index) => {
      if (!isRecord(tool) || !isRecord(tool.value) || tool.value.tool_type !== 'flowmodule') return;
      const summaryPath = [...path, 'value', 'tools', index, 'summary'];
      const name = tool.summary;
      if (name === undefined) {
        issues.push(issueAt(summaryPath, 'required: the agent calls a flowmodule tool by its summary'));
        return;
      }
      if (typeof name !== 'string') return;
      if (!TOOL_NAME.test(name))
        issues.push(
          issueAt(
            summaryPath,
            'must match ^[a-zA-Z0-9_]+$ (letters, digits and underscores): the agent calls the tool by this name',
          ),
        );
      else if (name === WEB_SEARCH_TOOL_NAME)
        issues.push(issueAt(summaryPath, `"${WEB_SEARCH_TOOL_NAME}" is reserved for the websearch tool`));
      const first = named.get(name);
      if (first === undefined) named.set(name, formatJsonPath(summaryPath));
      else issues.push(issueAt(summaryPath, `duplicate tool name "${name}"; already used at ${first}`));
    });
  }
  return issues;
};
