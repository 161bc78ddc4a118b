import { HTTP_ROUTES, routePattern, SERVICES } from '@flowmesh/contracts';
import { runFlowmesh } from '@flowmesh/testing';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

describe('flowmesh route-table', () => {
  it('prints the route table as JSON, with each route regex and service port', async () => {
    const result = await runFlowmesh(['route-table', '--format', 'json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(
      HTTP_ROUTES.map((route) => ({
        path: route.path,
        service: route.service,
        regex: routePattern(route.path),
        port: SERVICES[route.service].defaultHttpPort,
      })),
    );
  });

  it('prints a values fragment the Helm chart reads', async () => {
    const result = await runFlowmesh(['route-table', '--format', 'helm']);
    expect(result.code).toBe(0);
    const values = parse(result.stdout) as {
      routes: Array<{ path: string; service: string; regex: string }>;
    };
    expect(values.routes).toHaveLength(HTTP_ROUTES.length);
    expect(values.routes).toContainEqual({ path: '/v1', service: 'llm-gateway', regex: '^/v1(/.*)?$' });
  });

  it('prints a table for people by default, and refuses an unknown format', async () => {
    const table = await runFlowmesh(['route-table']);
    expect(table.stdout.split('\n')[0]).toMatch(/^PATH\s+SERVICE\s+PORT$/);
    expect(table.stdout).toMatch(/\/api\/w\/\*\/jobs\s+flow-orchestrator\s+8101/);

    const wrong = await runFlowmesh(['route-table', '--format', 'xml']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain("option '--format <format>' argument 'xml' is invalid");
  });
});
