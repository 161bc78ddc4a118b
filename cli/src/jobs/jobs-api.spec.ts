import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryHttp } from '../sync/registry-connection.js';
import { JobsApi } from './jobs-api.js';

const EVENTS = ['a', 'b', 'c', 'd'];

// A stream server that drops the first connection after two events, as a proxy or a restart
// would, and serves the rest to a reader that names the last offset it saw.
describe('JobsApi.stream', () => {
  let server: http.Server;
  let url: string;
  const asked: string[] = [];

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      asked.push(request.url ?? '');
      const after = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('after') ?? 0);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (offset: number) =>
        response.write(`id: ${offset}\nevent: token_delta\ndata: ${JSON.stringify(EVENTS[offset - 1])}\n\n`);
      if (after === 0) {
        send(1);
        // Dropped before the end, once what was written went out.
        response.write(`id: 2\nevent: token_delta\ndata: "b"\n\n`, () => response.socket?.destroy());
        return;
      }
      for (let offset = after + 1; offset <= EVENTS.length; offset++) send(offset);
      response.end('event: end\ndata: {"status":"completed","success":true}\n\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('opens a dropped stream again after the last offset: every event once, then the end', async () => {
    const api = new JobsApi(new RegistryHttp({ url, token: 'fm_test', workspace: 'main' }));
    const seen: unknown[] = [];
    const end = await api.stream('0190a8b0-0000-7000-8000-000000000001', (_event, data) => seen.push(data));
    expect(seen).toEqual(EVENTS);
    expect(end).toEqual({ status: 'completed', success: true });
    expect(asked.map((path) => path.split('?')[1] ?? '')).toEqual(['', 'after=2']);
  });
});

// A server whose first answer to a run is lost (the connection cut after the run was accepted,
// as a crash of a proxy would): the CLI sends it again with the same job id, so one run starts.
describe('JobsApi run requests', () => {
  let server: http.Server;
  let url: string;
  const runs: string[] = [];

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      const jobId = new URL(request.url ?? '/', 'http://x').searchParams.get('job_id') ?? '';
      runs.push(jobId);
      request.resume();
      if (runs.length === 1) {
        request.socket.destroy();
        return;
      }
      response.writeHead(201, { 'content-type': 'text/plain' }).end(jobId);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('names its job id, and sends a run whose answer was lost again with the same one', async () => {
    const api = new JobsApi(new RegistryHttp({ url, token: 'fm_test', workspace: 'main' }));
    const id = await api.runFlowByPath('f/demo/flow', { n: 1 }, { memoryId: 'conv-1' });
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(runs[1]).toBe(runs[0]);
    expect(id).toBe(runs[0]);
  });
});
