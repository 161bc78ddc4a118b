import type { IncomingMessage, ServerResponse } from 'node:http';
import { All, Controller, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Caller } from '../../http/caller.js';
import { CurrentCaller } from '../../http/current-caller.decorator.js';
import { McpAuthGuard } from './mcp-auth.guard.js';
import { McpServerFactory } from './mcp-server.factory.js';

/**
 * The MCP endpoint of a workspace, at Windmill's URL: `/api/mcp/w/<workspace>/mcp` (Streamable
 * HTTP). Stateless: every message is a POST; a GET (a stream the server would push on) and a
 * DELETE (the end of a session) have nothing to serve, 405 as the protocol allows.
 */
@Controller('api/mcp/w/:workspace')
@UseGuards(McpAuthGuard)
export class McpController {
  constructor(private readonly servers: McpServerFactory) {}

  @Post('mcp')
  serve(
    @CurrentCaller() caller: Caller,
    @Req() req: IncomingMessage & { body?: unknown },
    @Res() res: ServerResponse,
  ): Promise<void> {
    return this.servers.serve(caller, req, res);
  }

  @All('mcp')
  refuse(@Res() res: ServerResponse): void {
    res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: 'method not allowed: this MCP server is stateless, send every message as a POST',
        },
        id: null,
      }),
    );
  }
}
