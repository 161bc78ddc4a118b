import { runFlowmesh, startMesh, type TestMesh } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const TOKEN_LINE =
  /^flowmesh: first admin (\S+) of workspace "main", API token \(shown once, keep it\): (\S+)$/;

describe('first admin', () => {
  let mesh: TestMesh;
  let idle: TestMesh;

  beforeAll(async () => {
    [mesh, idle] = await Promise.all([
      startMesh({ processes: ['resource-registry'] }),
      startMesh({ processes: ['resource-registry'], env: { FLOWMESH_BOOTSTRAP: 'off' } }),
    ]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([mesh?.stop(), idle?.stop()]);
  });

  it('a fresh registry prints the generated admin token once, as one plain line and in no JSON log entry', () => {
    const lines = mesh.logs('resource-registry');
    const tokenLines = lines.filter((line) => TOKEN_LINE.test(line));
    expect(tokenLines).toHaveLength(1);
    const token = TOKEN_LINE.exec(tokenLines[0] ?? '')?.[2] ?? '';
    expect(token).toMatch(/^fm_[A-Za-z0-9_-]{43}$/);
    expect(lines.filter((line) => line.includes(token))).toEqual(tokenLines);
  });

  it('`flowmesh admin init` then creates nothing and prints no token', async () => {
    const result = await runFlowmesh(['admin', 'init'], { env: mesh.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'workspace "main" already has its first admin (admin@flowmesh.local); nothing created\n',
    );
  });

  it('with start-up bootstrap off, `flowmesh admin init` creates the admin once and prints its token once', async () => {
    const first = await runFlowmesh(['admin', 'init'], { env: idle.env });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /^created workspace "main" and its first admin admin@flowmesh\.local \(user admin\); API token \(shown once, keep it\): fm_[A-Za-z0-9_-]{43}\n$/,
    );
    // Once created, a given FLOWMESH_ADMIN_TOKEN changes nothing either.
    const again = await runFlowmesh(['admin', 'init', '--json'], {
      env: { ...idle.env, FLOWMESH_ADMIN_TOKEN: 'given-admin-token-0123456789abcdef' },
    });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({
      created: false,
      workspace: 'main',
      username: 'admin',
      email: 'admin@flowmesh.local',
    });
  });
});
