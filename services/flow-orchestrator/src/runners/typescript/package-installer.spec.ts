import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LockerClient, TypescriptLock } from '@flowmesh/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PackageInstaller } from './package-installer.js';

const lock = (hash: string, requirements: Record<string, string>): TypescriptLock => ({
  hash: hash.repeat(64).slice(0, 64),
  requirements,
  lockfile: { lockfileVersion: 3, packages: { '': { dependencies: requirements } } },
});

describe('PackageInstaller with a lock stored in the script', () => {
  let dir: string;
  let npm: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fm-installer-'));
    // Stands in for `npm ci`: records the lockfile it was given.
    npm = join(dir, 'npm-stub.sh');
    await writeFile(npm, `#!/bin/sh\ncp package-lock.json "${dir}/installed-lock.json"\n`);
    await chmod(npm, 0o755);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const installer = (locker: Partial<LockerClient>) =>
    new PackageInstaller(
      { cacheDir: join(dir, 'cache'), npm, timeoutMs: 10_000, lockCacheMs: 60_000 },
      locker as LockerClient,
    );

  it('installs the stored lock as it is and asks dependency-locker nothing', async () => {
    const lockTypescript = vi.fn();
    const stored = lock('a', { 'fm-alpha': '1.0.0', 'fm-beta': '2.0.0' });
    const packages = await installer({ lockTypescript }).packagesFor(
      { 'fm-alpha': 'latest' },
      () => undefined,
      stored,
    );
    expect(packages).toEqual({ dir: join(dir, 'cache', stored.hash), names: ['fm-alpha'] });
    expect(lockTypescript).not.toHaveBeenCalled();
    expect(JSON.parse(await readFile(join(dir, 'installed-lock.json'), 'utf8'))).toEqual(stored.lockfile);
  });

  it('asks dependency-locker when the stored lock does not cover what the script imports', async () => {
    const fresh = lock('b', { 'fm-gamma': 'latest' });
    const lockTypescript = vi.fn().mockResolvedValue({ lock: fresh, cached: false });
    const stored = lock('a', { 'fm-alpha': '1.0.0' });
    const packages = await installer({ lockTypescript }).packagesFor(
      { 'fm-gamma': 'latest' },
      () => undefined,
      stored,
    );
    expect(lockTypescript).toHaveBeenCalledWith({ requirements: { 'fm-gamma': 'latest' } });
    expect(packages.dir).toBe(join(dir, 'cache', fresh.hash));
  });
});
