import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { JobResultMaybeSchema } from '@flowmesh/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryHttp, RegistryRequestError } from './registry-connection.js';

// A mesh that answers one route as its contract says and another as it does not.
describe('RegistryHttp answers', () => {
  let server: http.Server;
  let registry: RegistryHttp;

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      const body = request.url?.endsWith('/good')
        ? { completed: true, started: true, success: true, result: 42, extra: 'dropped' }
        : { completed: 'yes', started: true, result: 42 };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    registry = new RegistryHttp({ url, token: 'fm_test', workspace: 'main' });
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('decodes a JSON answer with its contract schema', async () => {
    await expect(
      registry.get('jobs_u/completed/get_result_maybe/good', JobResultMaybeSchema),
    ).resolves.toEqual({
      completed: true,
      started: true,
      success: true,
      result: 42,
    });
  });

  it('refuses an answer its contract does not allow, naming the route and the field', async () => {
    const error = await registry
      .get('jobs_u/completed/get_result_maybe/bad', JobResultMaybeSchema)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryRequestError);
    expect(error).toMatchObject({ code: 'INVALID_ANSWER', status: 200 });
    expect((error as Error).message).toContain('GET jobs_u/completed/get_result_maybe/bad');
    expect((error as Error).message).toContain('completed:');
  });
});
