import type { AgentStepCaps, AgentTool, ToolCall, ChatMessage } from '@flowmesh/contracts';
import type { AgentBrain } from '../loop/agent-brain.js';

/**
 * The brain as the workspace's caps allow it (`workspace_settings`, handed over with the step):
 * `max_iterations` lowered to `max_agent_iterations`, tool calls counted against
 * `max_agent_tool_calls`, and at `max_agent_depth` no agent tool offered. Each cap that changes
 * what the step asked for says so through `log`. A flow author cannot raise any of them.
 */
export function cappedBrain(
  brain: AgentBrain,
  caps: AgentStepCaps | undefined,
  depth: number,
  log: (message: string) => void,
): AgentBrain {
  if (!caps) return brain;
  let capped: AgentBrain = { ...brain, maxToolCalls: caps.max_agent_tool_calls };
  if (brain.maxIterations > caps.max_agent_iterations) {
    log(
      `max_iterations ${brain.maxIterations} capped to ${caps.max_agent_iterations} by the workspace (max_agent_iterations)`,
    );
    capped = { ...capped, maxIterations: caps.max_agent_iterations };
  }
  const agents = brain.tools.filter(isAgentTool);
  if (depth >= caps.max_agent_depth && agents.length > 0) {
    log(
      `agent tool(s) ${agents.map((tool) => tool.summary ?? tool.id).join(', ')} left out: this agent is nested ${depth} deep, and the workspace allows ${caps.max_agent_depth} (max_agent_depth)`,
    );
    capped = { ...capped, tools: brain.tools.filter((tool) => !isAgentTool(tool)) };
  }
  return capped;
}

function isAgentTool(tool: AgentTool): boolean {
  return (tool.value as { type?: string }).type === 'aiagent';
}

/**
 * The calls of this turn past the step's tool-call cap (`calls` are the newest in `record`,
 * counted with every call made before them), refused to the model with `refusal`.
 */
export function callsOverCap(
  record: readonly ChatMessage[],
  calls: readonly ToolCall[],
  cap: number | undefined,
): { readonly over: ReadonlySet<string>; readonly refusal: string } {
  const refusal = `the workspace allows at most ${cap} tool calls per agent step (max_agent_tool_calls): this call was not run; answer with what you have`;
  if (cap === undefined) return { over: new Set(), refusal };
  const made = record.reduce(
    (sum, message) => sum + (message.role === 'assistant' ? (message.toolCalls?.length ?? 0) : 0),
    0,
  );
  const before = made - calls.length;
  const room = Math.max(cap - before, 0);
  return { over: new Set(calls.slice(room).map((call) => call.id)), refusal };
}
