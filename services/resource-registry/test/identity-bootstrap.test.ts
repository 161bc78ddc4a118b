import { createRegistryIdentityClient } from '@flowmesh/contracts';
import { startTestService, type TestService } from '@flowmesh/testing';
import { DataSource } from 'typeorm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resourceRegistryDefinition } from '../src/resource-registry.definition.js';
import { randomAdminToken } from './support/registry-cast.js';

const TOKEN_LINE =
  /^flowmesh: first admin (\S+) of workspace "main", API token \(shown once, keep it\): (\S+)\n$/;

/** Starts a registry and returns what it wrote on stdout while starting. */
async function startCapturing(
  env: Record<string, string>,
): Promise<{ service: TestService; printed: string[] }> {
  const printed: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const spy = vi
    .spyOn(process.stdout, 'write')
    .mockImplementation((chunk: string | Uint8Array, ...rest: never[]) => {
      printed.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return write(chunk, ...rest);
    });
  try {
    return { service: await startTestService(resourceRegistryDefinition, { env }), printed };
  } finally {
    spy.mockRestore();
  }
}

describe('first admin bootstrap', () => {
  const services: TestService[] = [];
  afterEach(async () => {
    await Promise.all(services.splice(0).map((service) => service.stop()));
  });

  it('with FLOWMESH_ADMIN_TOKEN: workspace main and its admin, that token works, and no token is printed', async () => {
    const token = randomAdminToken();
    const { service, printed } = await startCapturing({
      FLOWMESH_ADMIN_TOKEN: token,
      FLOWMESH_ADMIN_EMAIL: 'root@example.test',
    });
    services.push(service);
    const registry = createRegistryIdentityClient(service.client);

    const me = await registry.whoami({ actor: { token }, workspace: 'main' });
    expect(me).toMatchObject({
      workspace: 'main',
      kind: 'user',
      username: 'admin',
      email: 'root@example.test',
      isAdmin: true,
    });
    expect(me.scopes).toBeUndefined();
    expect((await registry.listWorkspaces({ actor: { token } })).workspaces.map((w) => w.id)).toEqual([
      'main',
    ]);
    expect(printed.join('')).not.toContain(token);
    expect(printed.some((chunk) => TOKEN_LINE.test(chunk))).toBe(false);

    // Idempotent: asking again creates nothing and returns no token.
    expect(await registry.adminInit({})).toEqual({
      created: false,
      workspace: 'main',
      username: 'admin',
      email: 'root@example.test',
    });
  });

  it('without it: a generated token, printed once as one plain line, works; the database holds only its hash', async () => {
    const { service, printed } = await startCapturing({ FLOWMESH_ADMIN_USERNAME: 'boss' });
    services.push(service);
    const lines = printed.filter((chunk) => TOKEN_LINE.test(chunk));
    expect(lines).toHaveLength(1);
    const token = TOKEN_LINE.exec(lines[0] ?? '')?.[2] ?? '';
    expect(printed.filter((chunk) => chunk.includes(token))).toEqual(lines);

    const registry = createRegistryIdentityClient(service.client);
    expect(await registry.whoami({ actor: { token }, workspace: 'main' })).toMatchObject({
      username: 'boss',
      isAdmin: true,
    });
    const rows: unknown[] = await service.running.app.get(DataSource).query(`SELECT * FROM api_token`);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token.slice(12));

    const again = await registry.adminInit({ adminToken: randomAdminToken() });
    expect(again).toEqual({
      created: false,
      workspace: 'main',
      username: 'boss',
      email: 'admin@flowmesh.local',
    });
  });

  it('with FLOWMESH_BOOTSTRAP=off nothing is created at start; registry.admin.init creates it exactly once', async () => {
    const { service, printed } = await startCapturing({ FLOWMESH_BOOTSTRAP: 'off' });
    services.push(service);
    expect(printed.some((chunk) => TOKEN_LINE.test(chunk))).toBe(false);
    const dataSource = service.running.app.get(DataSource);
    expect(await dataSource.query(`SELECT id FROM workspace`)).toEqual([]);

    const registry = createRegistryIdentityClient(service.client);
    const [first, second] = await Promise.all([registry.adminInit({}), registry.adminInit({})]);
    const created = [first, second].filter((reply) => reply.created);
    expect(created).toHaveLength(1);
    const token = created[0]?.token ?? '';
    expect(await registry.whoami({ actor: { token }, workspace: 'main' })).toMatchObject({ isAdmin: true });
    expect([first, second].filter((reply) => reply.token !== undefined)).toHaveLength(1);
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM api_token`)).toEqual([{ n: 1 }]);
  });

  it('refuses a weak FLOWMESH_ADMIN_TOKEN at start, naming the setting but not the value', async () => {
    await expect(
      startTestService(resourceRegistryDefinition, { env: { FLOWMESH_ADMIN_TOKEN: 'short-secret' } }),
    ).rejects.toThrow(/FLOWMESH_ADMIN_TOKEN must be at least 24 characters/);
    await expect(
      startTestService(resourceRegistryDefinition, { env: { FLOWMESH_ADMIN_TOKEN: 'short-secret' } }),
    ).rejects.not.toThrow(/short-secret/);
  });

  it('requires FLOWMESH_JOB_TOKEN_KEY in production', async () => {
    await expect(
      startTestService(resourceRegistryDefinition, { env: { NODE_ENV: 'production' } }),
    ).rejects.toThrow(/FLOWMESH_JOB_TOKEN_KEY is required when NODE_ENV=production/);
  });
});
