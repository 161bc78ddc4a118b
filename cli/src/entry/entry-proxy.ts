import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { matchHttpRoute, type ErrorEnvelope, type ServiceName } from '@flowmesh/contracts';
import { createProxyServer } from 'http-proxy-3';

export interface EntryProxyOptions {
  readonly host: string;
  /** 0 picks a free port (tests). */
  readonly port: number;
  /** Base URL of each service's HTTP server (`http://127.0.0.1:8105`). */
  readonly upstreams: Readonly<Partial<Record<ServiceName, string>>>;
}

export interface EntryProxy {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The one HTTP entry point of a local mesh: a path goes to the service the contracts' route
 * table names (the same table the Helm chart's Ingress is generated from). `/healthz` answers
 * for the entry itself; any other path is a JSON 404 in the mesh's error envelope.
 */
export async function startEntryProxy(options: EntryProxyOptions): Promise<EntryProxy> {
  const proxy = createProxyServer({ xfwd: true });
  proxy.on('error', (error, _req, res) => {
    if (isServerResponse(res))
      sendError(res, 502, { code: 'UNAVAILABLE', message: `upstream failed: ${error.message}` });
  });

  const server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://entry').pathname;
    if (pathname === '/healthz') return sendJson(res, 200, { status: 'ok' });
    const route = matchHttpRoute(pathname);
    const target = route ? options.upstreams[route.service] : undefined;
    if (!route) return sendError(res, 404, { code: 'NOT_FOUND', message: `no service serves ${pathname}` });
    if (!target)
      return sendError(res, 503, { code: 'UNAVAILABLE', message: `${route.service} is not ready` });
    proxy.web(req, res, { target });
  });
  server.on('upgrade', (req: IncomingMessage, socket, head: Buffer) => {
    const route = matchHttpRoute(new URL(req.url ?? '/', 'http://entry').pathname);
    const target = route ? options.upstreams[route.service] : undefined;
    if (target) proxy.ws(req, socket, head, { target });
    else socket.destroy();
  });

  await listen(server, options.port, options.host);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}`,
    close: () => closeServer(server),
  };
}

function isServerResponse(value: unknown): value is ServerResponse {
  return typeof value === 'object' && value !== null && 'writeHead' in value;
}

function sendError(res: ServerResponse, status: number, envelope: ErrorEnvelope): void {
  sendJson(res, status, envelope);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}
