import { HTTP_ROUTES, MESH_PROCESSES } from '@flowmesh/contracts';
import type { ProcessStatus } from '@flowmesh/cli';
import { runFlowmesh, startMesh, type TestMesh } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SHUTDOWN_TIMEOUT_MS = 10_000;

/** A concrete path under a route: `/api/w/*\/jobs` -> `/api/w/main/jobs/e2e-probe`. */
function samplePath(routePath: string): string {
  return `${routePath.replace('*', 'main')}/e2e-probe`;
}

describe('the whole mesh, each process on its own', () => {
  let mesh: TestMesh | undefined;

  beforeAll(async () => {
    mesh = await startMesh({ entry: true, shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS });
  }, 180_000);

  afterAll(async () => {
    // Only when a test failed before the stop test ran.
    await mesh?.stop().catch(() => undefined);
  });

  it('is listed as healthy, process by process, by `flowmesh status`', async () => {
    const result = await runFlowmesh(['status', '--json'], { env: mesh?.env });
    const rows = JSON.parse(result.stdout) as ProcessStatus[];
    expect(rows.map((row) => [row.name, row.health, row.version])).toEqual(
      MESH_PROCESSES.map((p) => [p.name, 'up', '0.1.0']),
    );
    expect(result.code).toBe(0);
  });

  it('routes every path of the route table through the one entry point to the service that owns it', async () => {
    const answeredBy = await Promise.all(
      HTTP_ROUTES.map(async (route) => {
        const response = await fetch(`${mesh?.entryUrl}${samplePath(route.path)}`);
        await response.body?.cancel();
        return [route.path, response.headers.get('x-flowmesh-service')];
      }),
    );
    expect(answeredBy).toEqual(HTTP_ROUTES.map((route) => [route.path, route.service]));
  });

  it('stops on SIGTERM: every process exits 0 within the shutdown timeout', async () => {
    const running = mesh;
    mesh = undefined;
    const reports = await running?.stop();
    // Past FLOWMESH_SHUTDOWN_TIMEOUT_MS a process forces its exit with code 1, and stop() kills one
    // that outlives it: code 0 and not killed is a stop within the timeout, measured by the
    // process itself rather than by this one's clock on a loaded machine.
    expect(reports?.map((r) => [r.name, r.exit.code, r.killed])).toEqual(
      MESH_PROCESSES.map((p) => [p.name, 0, false]),
    );
  });
});
