import type { IncomingMessage, ServerResponse } from 'node:http';
import { packageVersion } from '@flowmesh/bootstrap';
import { Inject, Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '../../http/caller.js';
import { CancelJobUseCase } from '../../jobs/cancel-job.use-case.js';
import { JobQueries } from '../../jobs/job-queries.js';
import type { McpConfig } from './mcp.config.js';
import { McpTaskStore } from './mcp-task.store.js';
import { MCP_CONFIG, McpToolCallService } from './mcp-tool-call.service.js';
import { McpToolsService } from './mcp-tools.service.js';

const VERSION = packageVersion(import.meta.url);
const INSTRUCTIONS =
  'The scripts and flows of a flowmesh workspace that this token may run. Each is a tool: calling it runs the item and answers with its result.';

/**
 * One MCP server per HTTP request, stateless (as Windmill's): nothing outlives the request, so
 * any replica answers any request and a session holds no memory. Its tools are the caller's
 * (`McpToolsService`), a call runs one (`McpToolCallService`). The transport answers a call
 * with an SSE stream, which carries the call's progress notifications before its result; a call
 * made as a task answers its handle at once (`McpTaskStore`: the task is the run's job).
 */
@Injectable()
export class McpServerFactory {
  constructor(
    private readonly tools: McpToolsService,
    private readonly calls: McpToolCallService,
    private readonly jobs: JobQueries,
    private readonly cancels: CancelJobUseCase,
    @Inject(MCP_CONFIG) private readonly config: McpConfig,
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
    const taskStore = new McpTaskStore(
      caller,
      { jobs: this.jobs, cancels: this.cancels },
      this.config.progressIntervalMs,
    );
    const mcp = new McpServer(
      { name: 'flowmesh', version: VERSION },
      {
        capabilities: {
          tools: { listChanged: false },
          // A call may be a task: its handle answered at once, followed with tasks/get and tasks/result.
          tasks: { cancel: {}, requests: { tools: { call: {} } } },
        },
        instructions: INSTRUCTIONS,
        taskStore,
      },
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
      if (request.params.task) {
        const task = await taskStore.createTask();
        await this.calls.startTask(caller, item, args ?? {}, task.taskId);
        return { task };
      }
      return this.calls.call(caller, item, args ?? {}, extra);
    });
    return mcp;
  }
}
