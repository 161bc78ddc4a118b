import { createLockerClient, type MeshError } from '@flowmesh/contracts';
import {
  startPackumentRegistry,
  startTestService,
  type PackumentRegistry,
  type TestService,
} from '@flowmesh/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dependencyLockerDefinition } from '../src/dependency-locker.definition.js';

// Over NATS, against a local packument registry (FLOWMESH_LOCKER_NPM_REGISTRY): offline.
describe('dependency-locker: TypeScript locks', () => {
  let locker: TestService;
  let npm: PackumentRegistry;

  beforeAll(async () => {
    npm = await startPackumentRegistry({
      'fm-odd': { '3.0.0': {}, '3.0.1': { 'fm-number': '^6.0.0' } },
      'fm-number': { '6.0.0': {}, '6.2.0': {} },
      'fm-ms': { '2.0.0': {}, '2.1.3': {} },
    });
    locker = await startTestService(dependencyLockerDefinition, {
      env: { FLOWMESH_LOCKER_NPM_REGISTRY: npm.url },
    });
  }, 120_000);

  afterAll(async () => {
    await locker?.stop();
    await npm?.close();
  });

  it('resolves requirements into the whole tree, exact versions and integrity; the same requirements get the same lock', async () => {
    const client = createLockerClient(locker.client);
    const first = await client.lockTypescript({ requirements: { 'fm-odd': '3.0.1', 'fm-ms': '^2.1.0' } });
    expect(first.cached).toBe(false);
    const packages = first.lock.lockfile.packages as Record<string, { version: string; integrity: string }>;
    expect(packages['node_modules/fm-odd']).toMatchObject({
      version: '3.0.1',
      integrity: expect.stringMatching(/^sha512-/) as unknown,
    });
    // A dependency of a dependency is in the tree too.
    expect(packages['node_modules/fm-number']?.version).toBe('6.2.0');
    expect(packages['node_modules/fm-ms']?.version).toMatch(/^2\.1\./);

    // Kept: the same requirements, in any order, answer the same lock without npm.
    const again = await client.lockTypescript({ requirements: { 'fm-ms': '^2.1.0', 'fm-odd': '3.0.1' } });
    expect(again).toEqual({ cached: true, lock: first.lock });
  }, 120_000);

  it('a lock of floating ranges is resolved again once FLOWMESH_LOCKER_REFRESH_S has passed; one of exact versions is kept', async () => {
    const client = createLockerClient(locker.client);
    await client.lockTypescript({ requirements: { 'fm-ms': '^2.0.0' } });
    await client.lockTypescript({ requirements: { 'fm-ms': '2.1.3' } });
    // Both resolved two days ago (the default refresh is a day).
    const db = new pg.Client({ connectionString: locker.database.url });
    await db.connect();
    try {
      await db.query(`UPDATE dependency_locker.lockfile SET created_at = now() - interval '2 days'`);
    } finally {
      await db.end();
    }
    expect((await client.lockTypescript({ requirements: { 'fm-ms': '^2.0.0' } })).cached).toBe(false);
    expect((await client.lockTypescript({ requirements: { 'fm-ms': '^2.0.0' } })).cached).toBe(true);
    expect((await client.lockTypescript({ requirements: { 'fm-ms': '2.1.3' } })).cached).toBe(true);
  }, 120_000);

  it('names the package the registry does not have, the range nothing matches, and a requirement that is not one', async () => {
    const client = createLockerClient(locker.client);
    const failure = (requirements: Record<string, string>) =>
      client.lockTypescript({ requirements }).then(
        () => undefined,
        (error: unknown) => error as MeshError,
      );
    const missing = await failure({ 'flowmesh-no-such-package-7f3a': '1.0.0' });
    expect([missing?.code, missing?.message]).toEqual([
      'VALIDATION_FAILED',
      'requirements.flowmesh-no-such-package-7f3a: not found in the npm registry',
    ]);
    const noMatch = await failure({ 'fm-ms': '99.0.0' });
    expect([noMatch?.code, noMatch?.message]).toEqual([
      'VALIDATION_FAILED',
      'requirements.fm-ms: no version matches 99.0.0',
    ]);
    const url = await failure({ evil: 'https://example.test/evil.tgz' });
    expect(url?.code).toBe('VALIDATION_FAILED');
    expect(url?.message).toContain('must be a version, a range or a dist-tag');
    const name = await failure({ '../etc': '1.0.0' });
    expect(name?.message).toContain('must be an npm package name');
  }, 120_000);
});
