import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEntryProxy, type EntryProxy } from '../src/entry/entry-proxy.js';

/** A real HTTP server standing in for a service: it echoes what reached it. */
async function upstream(name: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-flowmesh-service': name });
      res.end(
        JSON.stringify({
          service: name,
          method: req.method,
          url: req.url,
          body,
          forwardedFor: req.headers['x-forwarded-for'],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('the HTTP entry point', () => {
  let entry: EntryProxy;
  const servers: Server[] = [];

  beforeAll(async () => {
    const registry = await upstream('resource-registry');
    const gateway = await upstream('llm-gateway');
    servers.push(registry.server, gateway.server);
    entry = await startEntryProxy({
      host: '127.0.0.1',
      port: 0,
      upstreams: {
        'resource-registry': registry.url,
        'llm-gateway': gateway.url,
        // Nothing listens here: a service that is down.
        'memory-service': `http://127.0.0.1:${await freePort()}`,
      },
    });
  });

  afterAll(async () => {
    await entry?.close();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('sends a path to the service the route table names, path and query intact', async () => {
    const response = await fetch(`${entry.url}/api/w/main/resources/u/alice/db?limit=5`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      service: 'resource-registry',
      method: 'GET',
      url: '/api/w/main/resources/u/alice/db?limit=5',
      forwardedFor: '127.0.0.1',
    });
  });

  it('passes request bodies through to the gateway', async () => {
    const response = await fetch(`${entry.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model":"gpt"}',
    });
    expect(response.headers.get('x-flowmesh-service')).toBe('llm-gateway');
    expect(await response.json()).toMatchObject({
      service: 'llm-gateway',
      method: 'POST',
      body: '{"model":"gpt"}',
    });
  });

  it('answers its own /healthz', async () => {
    const response = await fetch(`${entry.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('answers an unknown path with a JSON 404 in the mesh error envelope', async () => {
    const response = await fetch(`${entry.url}/api/nothing-here`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(await response.json()).toEqual({
      code: 'NOT_FOUND',
      message: 'no service serves /api/nothing-here',
    });
  });

  it('says which service is missing or down instead of hanging', async () => {
    const notRunning = await fetch(`${entry.url}/api/w/main/jobs`);
    expect(notRunning.status).toBe(503);
    expect(await notRunning.json()).toEqual({
      code: 'UNAVAILABLE',
      message: 'flow-orchestrator is not ready',
    });

    const down = await fetch(`${entry.url}/api/w/main/memory/m1`);
    expect(down.status).toBe(502);
    expect(await down.json()).toMatchObject({ code: 'UNAVAILABLE' });
  });
});
