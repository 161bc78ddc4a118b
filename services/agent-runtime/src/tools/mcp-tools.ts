import { randomUUID } from 'node:crypto';
import { McpResourceValueSchema, type AgentTool, type McpToolValue } from '@flowmesh/contracts';
import type { OutboundFetch } from '@flowmesh/outbound';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { PreparedTool, ToolCallOutcome } from './agent-tool.port.js';
import { mcpToolOutcome } from './mcp-result.js';

/** Connecting to a server and listing its tools may take this long before the step fails. */
const CONNECT_TIMEOUT_MS = 30_000;

export interface McpServerContext {
  /** Reads the `mcp` resource, its `$var:` secrets resolved, as the step's identity (read access needed). */
  readResource(path: string): Promise<unknown>;
  /** The SSRF-guarded fetch: the server's URL and every redirect are checked. */
  readonly fetch: OutboundFetch;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

/** An MCP server's session for one step: its tools, prepared for the model, and its close. */
export interface McpServerTools {
  readonly tools: PreparedTool[];
  close(): Promise<void>;
}

/**
 * Connects to the MCP server of an `mcp` tool (its `resource_path` names an `mcp` resource: URL,
 * transport, headers) through the outbound guard, lists its tools and keeps those
 * `include_tools` / `exclude_tools` leave. Each call of one is a `tools/call` on that session,
 * reported as an `mcp_tool_call` action. A server that cannot be read or reached fails the step,
 * naming the tool; its URL's path and query (where tokens hide) are never in the message.
 */
export async function connectMcpServer(
  tool: AgentTool,
  field: string,
  context: McpServerContext,
): Promise<McpServerTools> {
  const value = tool.value as McpToolValue;
  const config = McpResourceValueSchema.safeParse(await context.readResource(value.resource_path));
  if (!config.success)
    throw new McpToolError(
      field,
      `${value.resource_path} is not an mcp resource (${config.error.issues[0]?.path.join('.') || 'value'}: ${config.error.issues[0]?.message})`,
    );
  const url = new URL(config.data.url);
  const options = {
    requestInit: { headers: config.data.headers ?? {} },
    fetch: context.fetch as unknown as FetchLike,
  };
  const transport =
    config.data.transport === 'sse'
      ? new SSEClientTransport(url, options)
      : new StreamableHTTPClientTransport(url, options);
  const client = new Client({ name: 'flowmesh-agent-runtime', version: '0.1.0' });
  const close = () => client.close().catch(() => undefined);
  const listed: Array<{ name: string; description?: string; inputSchema: Record<string, unknown> }> = [];
  try {
    const request = { signal: context.signal, timeout: CONNECT_TIMEOUT_MS };
    await client.connect(transport, request);
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, request);
      listed.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
  } catch (error) {
    await close();
    throw new McpToolError(
      field,
      `the MCP server at ${url.host} (${value.resource_path}) could not be used: ${messageOf(error)}`,
    );
  }

  const included = listed.filter(
    (mcpTool) =>
      (value.include_tools === undefined || value.include_tools.includes(mcpTool.name)) &&
      !(value.exclude_tools ?? []).includes(mcpTool.name),
  );
  return {
    tools: included.map((mcpTool): PreparedTool => ({
      tool,
      definition: {
        name: mcpTool.name,
        ...(mcpTool.description ? { description: mcpTool.description } : {}),
        parameters: mcpTool.inputSchema,
      },
      run: async (args, onStarted, signal) => {
        onStarted({
          type: 'mcp_tool_call',
          call_id: randomUUID(),
          function_name: mcpTool.name,
          resource_path: value.resource_path,
          arguments: args,
        });
        return callTool(client, mcpTool.name, args, context.timeoutMs, signal);
      },
    })),
    close,
  };
}

async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<ToolCallOutcome> {
  try {
    const result = await client.callTool({ name, arguments: args }, undefined, {
      signal,
      timeout: timeoutMs,
    });
    return mcpToolOutcome(result as { content?: unknown; structuredContent?: unknown; isError?: unknown });
  } catch (error) {
    return {
      ok: false,
      content: JSON.stringify({ error: { name: 'McpToolCallFailed', message: messageOf(error) } }),
    };
  }
}

/** An MCP tool the step cannot use; the step fails with it, naming the tool. */
export class McpToolError extends Error {
  override readonly name = 'AgentToolError';
  constructor(field: string, reason: string) {
    super(`${field}: ${reason}`);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
