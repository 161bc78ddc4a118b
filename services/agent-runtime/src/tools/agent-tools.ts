import { createOrchestratorJobsClient, type AgentTool, type AgentToolInputs } from '@flowmesh/contracts';
import type { MeshClient } from '@flowmesh/messaging';
import { inputError } from '../loop/agent-brain.js';
import { prepareQuestionTool } from '../pause/question-tool.js';
import type { PreparedTool, ToolSet } from './agent-tool.port.js';
import { prepareFlowModuleTool, RUNNABLE_MODULES, type ToolRunContext } from './flow-module-tools.js';
import { connectMcpServer, type McpServerContext, type McpServerTools } from './mcp-tools.js';

/**
 * The tools an agent step may call, prepared for the model: flow modules run as orchestrator
 * jobs, `mcp` entries expand to the tools of their server (one session per server for the step),
 * the question tool parks the step; a tool with `requires_approval` waits for a person's approval.
 * A `websearch` entry is the provider's own search, asked for with each model call instead.
 * A tool this runtime cannot run, or two tools the model would see under one name, fail the step
 * before the first model call, naming the tool: never silently left out.
 */
export async function prepareTools(
  tools: readonly AgentTool[],
  overrides: AgentToolInputs,
  mesh: MeshClient,
  context: ToolRunContext & Omit<McpServerContext, 'timeoutMs'>,
): Promise<ToolSet> {
  const jobs = createOrchestratorJobsClient(mesh);
  const servers: McpServerTools[] = [];
  const close = async () => {
    await Promise.all(servers.map((server) => server.close()));
  };
  const prepared: PreparedTool[] = [];
  try {
    for (const [index, tool] of tools.entries()) {
      const field = `tools[${index}] (${tool.id})`;
      const value = tool.value as { tool_type: string; type?: string; requires_approval?: unknown };
      const requiresApproval = tool.requires_approval === true || value.requires_approval === true;
      const gated = (prepared: PreparedTool): PreparedTool =>
        requiresApproval ? { ...prepared, requiresApproval } : prepared;
      if (value.tool_type === 'mcp') {
        const server = await connectMcpServer(tool, field, context);
        servers.push(server);
        prepared.push(...server.tools.map(gated));
      } else if (value.tool_type === 'flowmodule' && RUNNABLE_MODULES.has(value.type ?? '')) {
        prepared.push(gated(prepareFlowModuleTool(tool, field, overrides, jobs, context)));
      } else if (value.tool_type === 'question') {
        prepared.push(prepareQuestionTool(tool));
      } else if (value.tool_type === 'websearch') {
        // The provider's own search, asked for on each model call (`AgentBrain.webSearch`): no tool of ours.
        continue;
      } else {
        const what = value.tool_type === 'flowmodule' ? `${value.type} module` : value.tool_type;
        throw inputError(
          field,
          `${what} tools are not supported by this agent-runtime yet (rawscript, script and flow modules, MCP servers, web search and the question tool are)`,
        );
      }
    }
    const seen = new Map<string, string>();
    for (const tool of prepared) {
      const other = seen.get(tool.definition.name);
      if (other !== undefined && other !== tool.tool.id)
        throw inputError(
          `tools (${other}, ${tool.tool.id})`,
          `both give the model a tool named ${tool.definition.name}; rename one (its summary) or leave it out of include_tools`,
        );
      seen.set(tool.definition.name, tool.tool.id);
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { tools: prepared, close };
}
