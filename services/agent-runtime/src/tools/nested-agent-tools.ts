import type { AgentTool } from '@flowmesh/contracts';

/**
 * The tools a nested agent tool is offered (000, Limits): none a person answers, so neither the
 * question tool nor a tool that requires approval. It has no one to ask, and its parent waits on it.
 */
export function withoutAnswerableTools<T extends AgentTool>(tools: readonly T[]): T[] {
  return tools.filter((tool) => {
    const value = tool.value as { tool_type?: string; requires_approval?: unknown };
    return (
      tool.requires_approval !== true && value.requires_approval !== true && value.tool_type !== 'question'
    );
  });
}
