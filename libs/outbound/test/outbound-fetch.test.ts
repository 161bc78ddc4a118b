import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request, type Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOutboundDispatcher,
  createOutboundFetch,
  OutboundPolicy,
  OutboundRefusedError,
  type ResolveAll,
} from '../src/index.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly authorization: string | undefined;
  readonly body: string;
}

/** A server on 127.0.0.1 whose routes redirect as the test says, recording what reached it. */
async function startServer(routes: (req: IncomingMessage, port: number) => [number, Record<string, string>]) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        body,
      });
      const [status, headers] = routes(req, (server.address() as AddressInfo).port);
      res.writeHead(status, headers).end(status === 200 ? 'ok' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { seen, port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Names the tests use, resolved without DNS. */
const names: Record<string, LookupAddress[]> = {
  'provider.test': [{ address: '127.0.0.1', family: 4 }],
  'other-origin.test': [{ address: '127.0.0.1', family: 4 }],
  'internal.test': [{ address: '127.0.0.2', family: 4 }],
};
const resolveAll: ResolveAll = (hostname, _options, callback) => {
  const found = names[hostname];
  if (found) callback(null, found);
  else callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
};

describe('createOutboundFetch', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  const dispatchers: Agent[] = [];

  function guardedFetch(allow: string, maxRedirects?: number) {
    const policy = new OutboundPolicy(allow);
    const dispatcher = createOutboundDispatcher(policy, { resolveAll });
    dispatchers.push(dispatcher);
    return createOutboundFetch({
      policy,
      dispatcher,
      ...(maxRedirects === undefined ? {} : { maxRedirects }),
    });
  }

  beforeAll(async () => {
    server = await startServer((req, port) => {
      const path = req.url ?? '/';
      if (path === '/to-metadata') return [302, { location: 'http://169.254.169.254/latest/meta-data/' }];
      if (path === '/to-metadata-name')
        return [302, { location: 'http://metadata.google.internal/computeMetadata/v1/' }];
      if (path === '/to-internal-name') return [302, { location: `http://internal.test:${port}/ok` }];
      if (path === '/to-file') return [302, { location: 'file:///etc/passwd' }];
      if (path === '/loop') return [302, { location: '/loop' }];
      if (path === '/same-origin') return [307, { location: '/ok' }];
      if (path === '/see-other') return [303, { location: '/ok' }];
      if (path === '/cross-origin') return [307, { location: `http://other-origin.test:${port}/ok` }];
      return [200, { 'content-type': 'text/plain' }];
    });
  });

  afterAll(async () => {
    await Promise.all(dispatchers.map((dispatcher) => dispatcher.close()));
    await server.close();
  });

  it('refuses loopback unless the allow-list names it, and never connects when it refuses', async () => {
    const before = server.seen.length;
    const strict = guardedFetch('');
    await expect(strict(`http://127.0.0.1:${server.port}/ok`)).rejects.toMatchObject({ reason: 'loopback' });
    await expect(strict(`http://provider.test:${server.port}/ok`)).rejects.toBeInstanceOf(
      OutboundRefusedError,
    );
    await expect(strict(`http://[::ffff:127.0.0.1]:${server.port}/ok`)).rejects.toMatchObject({
      reason: 'loopback',
    });
    // The dispatcher alone guards undici's `request` too (the gateway's hot path uses it).
    const dispatcher = createOutboundDispatcher(new OutboundPolicy(), { resolveAll });
    dispatchers.push(dispatcher);
    await expect(request(`http://provider.test:${server.port}/ok`, { dispatcher })).rejects.toMatchObject({
      reason: 'loopback',
    });
    expect(server.seen.length).toBe(before);

    const allowed = guardedFetch('127.0.0.0/8');
    const response = await allowed(`http://provider.test:${server.port}/ok`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('ok');
  });

  it('re-checks every redirect: metadata address, metadata name, a name resolving internally, another scheme', async () => {
    const fetch = guardedFetch('127.0.0.1/32');
    await expect(fetch(`http://127.0.0.1:${server.port}/to-metadata`)).rejects.toMatchObject({
      reason: 'metadata',
    });
    await expect(fetch(`http://127.0.0.1:${server.port}/to-metadata-name`)).rejects.toMatchObject({
      reason: 'metadata_host',
    });
    // 127.0.0.2 is loopback too, but only 127.0.0.1 is allowed: refused when the hop's name resolves.
    await expect(fetch(`http://127.0.0.1:${server.port}/to-internal-name`)).rejects.toMatchObject({
      reason: 'loopback',
      address: '127.0.0.2',
    });
    await expect(fetch(`http://127.0.0.1:${server.port}/to-file`)).rejects.toMatchObject({
      reason: 'scheme',
    });
    await expect(guardedFetch('127.0.0.1/32', 3)(`http://127.0.0.1:${server.port}/loop`)).rejects.toThrow(
      'too many redirects',
    );
  });

  it('follows allowed redirects like fetch: 307 keeps method and body, 303 becomes GET', async () => {
    const fetch = guardedFetch('127.0.0.0/8');
    server.seen.length = 0;
    const kept = await fetch(`http://127.0.0.1:${server.port}/same-origin`, {
      method: 'POST',
      body: '{"a":1}',
      headers: { authorization: 'Bearer same-origin-key', 'content-type': 'application/json' },
    });
    expect(kept.status).toBe(200);
    const changed = await fetch(`http://127.0.0.1:${server.port}/see-other`, { method: 'POST', body: 'x' });
    expect(changed.status).toBe(200);
    expect(
      server.seen.map(({ method, url, body, authorization }) => ({ method, url, body, authorization })),
    ).toEqual([
      { method: 'POST', url: '/same-origin', body: '{"a":1}', authorization: 'Bearer same-origin-key' },
      { method: 'POST', url: '/ok', body: '{"a":1}', authorization: 'Bearer same-origin-key' },
      { method: 'POST', url: '/see-other', body: 'x', authorization: undefined },
      { method: 'GET', url: '/ok', body: '', authorization: undefined },
    ]);
  });

  it('drops credentials when a redirect leaves the origin', async () => {
    const fetch = guardedFetch('127.0.0.0/8');
    server.seen.length = 0;
    const response = await fetch(`http://provider.test:${server.port}/cross-origin`, {
      method: 'POST',
      body: '{}',
      headers: { authorization: 'Bearer sk-secret', 'x-api-key': 'sk-secret', 'x-trace': 'kept' },
    });
    expect(response.status).toBe(200);
    expect(server.seen.map((seen) => seen.authorization)).toEqual(['Bearer sk-secret', undefined]);
  });
});
