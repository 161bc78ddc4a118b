import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Schedule } from '@flowmesh/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryHttp } from '../sync/registry-connection.js';
import { SchedulesApi } from './schedules-api.js';

const schedule = (path: string): Schedule => ({
  workspace_id: 'main',
  path,
  edited_by: 'ada',
  edited_at: '2026-12-07T10:00:00Z',
  schedule: '0 0 3 * * *',
  timezone: 'UTC',
  enabled: true,
  script_path: 'u/ada/job',
  is_flow: false,
  args: null,
  extra_perms: {},
  email: 'ada@example.test',
  permissioned_as: 'u/ada',
  error: null,
  on_failure: null,
  on_failure_times: null,
  on_failure_exact: null,
  on_failure_extra_args: null,
  on_recovery: null,
  on_recovery_times: null,
  on_recovery_extra_args: null,
  on_success: null,
  on_success_extra_args: null,
  ws_error_handler_muted: false,
  retry: null,
  summary: null,
  description: null,
  no_flow_overlap: false,
  tag: null,
  paused_until: null,
  cron_version: 'v2',
});

// The mesh pages before it leaves out what the caller may not read: a page can be short (here
// page 1 holds one readable schedule) while more follow. Only an empty page ends the list.
describe('SchedulesApi.list', () => {
  let server: http.Server;
  let url: string;
  const asked: string[] = [];
  const pages: Record<string, Schedule[]> = {
    '1': [schedule('u/ada/a')],
    '2': [schedule('u/ada/b'), schedule('u/ada/c')],
  };

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      const query = new URL(request.url ?? '/', 'http://x').searchParams;
      asked.push(`${query.get('page')}/${query.get('per_page')}/${query.get('path_start')}`);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(pages[query.get('page') ?? ''] ?? []));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reads page after page until an empty one, past a short page', async () => {
    const api = new SchedulesApi(new RegistryHttp({ url, token: 'fm_test', workspace: 'main' }));
    const listed = await api.list({ pathStart: 'u/ada' });
    expect(listed.map((s) => s.path)).toEqual(['u/ada/a', 'u/ada/b', 'u/ada/c']);
    expect(asked).toEqual(['1/1000/u/ada', '2/1000/u/ada', '3/1000/u/ada']);
  });
});
