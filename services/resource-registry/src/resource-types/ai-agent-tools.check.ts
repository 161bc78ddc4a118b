import { parseOpenFlow, type ValidationIssue } from '@flowmesh/contracts';

const STEP_TOOLS = 'modules[0].value.tools';

/**
 * The OpenFlow rules a JSON Schema cannot state (a flowmodule tool's summary is the name the
 * model calls it by: set, `^[a-zA-Z0-9_]+$`, unique; ids unique inside nested tool modules...),
 * applied to the tools of an `ai_agent` value by checking them as the tools of a one-step flow,
 * the same way the step they will be linked from is checked.
 */
export function aiAgentToolIssues(value: unknown): ValidationIssue[] {
  const tools = (value as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools) || tools.length === 0) return [];
  const result = parseOpenFlow({
    modules: [{ id: 'agent', value: { type: 'aiagent', input_transforms: {}, tools } }],
  });
  if (result.ok) return [];
  return result.errors
    .filter((issue) => issue.path.startsWith(STEP_TOOLS))
    .map((issue) => ({
      path: `value.tools${issue.path.slice(STEP_TOOLS.length)}`,
      message: issue.message.replaceAll(STEP_TOOLS, 'value.tools'),
    }));
}
