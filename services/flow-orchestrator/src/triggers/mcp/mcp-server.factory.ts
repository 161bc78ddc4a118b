import type { IncomingMessage, ServerResponse } from 'node:http';
import { packageVersion } from '@flowmesh/bootstrap';
import { Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '../../http/caller.js';
import { McpToolCallService } from './mcp-tool-call.service.js';
import { McpToolsService } from './mcp-tools.service.js';

const VERSION = packageVersion(import.meta.url);
const INSTRUCTIONS =
  'The scripts and flows of a flowmesh workspace that this token may run. Each is a tool: calling it runs the item and answers with its result.';

/**
 * One MCP server per HTTP request, stateless (as Windmill's): nothing outlives the request, so
 * any replica answers any request and a session holds no memory. Its tools are the caller's
 * (`McpToolsService`), a call runs one (`McpToolCallService`). The transport answers a call
 * with an SSE stream, which carries the call's progress notifications before its result.
 */
@Injectable()
export class McpServerFactory {
  constructor(
    private readonly tools: McpToolsService,
    private readonly calls: McpToolCallService,
  ) {}

  async serve(caller: Caller, req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> {
    const server = this.serverFor(caller);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    // A closed connection aborts the calls in flight (their waits end at the next slice).
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  private serverFor(caller: Caller): McpServer {
    const mcp = new McpServer(
      { name: 'flowmesh', version: VERSION },
      { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
    );
    // Tools come from the registry at each request, with JSON Schemas of their own: the
    // low-level handlers, not `registerTool` (which takes zod schemas known in advance).
    mcp.server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: await this.tools.list(caller),
    }));
    mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const { name, arguments: args } = request.params;
      const item = await this.tools.find(caller, name);
      if (!item) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `unknown tool ${name}: no script or flow of this token's MCP scope that its user may run has that name`,
        );
      }
      return this.calls.call(caller, item, args ?? {}, extra);
    });
    return mcp;
  }
}
