import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface McpTestServer {
  /** The MCP endpoint (streamable HTTP). */
  readonly url: string;
  /** Headers of every request it got. */
  readonly requests: IncomingHttpHeaders[];
  close(): Promise<void>;
}

/**
 * A real MCP server (the official SDK's, streamable HTTP, stateless) with two tools:
 * `get_weather` (a city) and `forecast`. Requests without `x-api-key: <apiKey>` get 401.
 */
export async function startMcpTestServer(apiKey: string): Promise<McpTestServer> {
  const requests: IncomingHttpHeaders[] = [];
  const http = createServer((req, res) => {
    requests.push(req.headers);
    if (req.headers['x-api-key'] !== apiKey) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const server = new McpServer({ name: 'weather', version: '1.0.0' });
    server.registerTool(
      'get_weather',
      { description: 'The weather in a city', inputSchema: { city: z.string() } },
      ({ city }) => ({ content: [{ type: 'text', text: `Sunny in ${city}` }] }),
    );
    server.registerTool('forecast', { description: 'Next week' }, () => ({
      content: [{ type: 'text', text: 'Rain' }],
    }));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}
