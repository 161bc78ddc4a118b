import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { npmLockText } from '@flowmesh/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_FILES, startPackagesMesh, type PackagesMesh } from './support/packages-mesh.js';

/** The lock dependency-locker would write for `ms@2.1.3`, its tarball on the mesh's local registry. */
function storedLock(npm: PackagesMesh['npm']) {
  const lockfile = {
    name: 'flowmesh-script',
    version: '0.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'flowmesh-script', version: '0.0.0', dependencies: { ms: '2.1.3' } },
      'node_modules/ms': {
        version: '2.1.3',
        resolved: npm.tarballUrl('ms', '2.1.3'),
        integrity: npm.integrity('ms', '2.1.3'),
      },
    },
  };
  return {
    hash: createHash('sha256').update(JSON.stringify(lockfile)).digest('hex'),
    requirements: { ms: '2.1.3' },
    lockfile,
  };
}

// A step holding the lock dependency-locker wrote on deploy runs from it: the mesh here has no
// dependency-locker at all, so a worker that asked for a lock would fail the step. The lock's
// tarball comes from a local registry, as in script-packages.test.ts.
describe('flow-orchestrator: a step with a stored lock installs it without asking for one', () => {
  let mesh: PackagesMesh;
  const step = (lock?: string) => ({
    id: 'step',
    value: {
      type: 'rawscript',
      language: 'bun',
      content: `import ms from 'ms@2.1.3';\nexport function main() { return ms('1d'); }`,
      input_transforms: {},
      ...(lock ? { lock } : {}),
    },
  });

  beforeAll(async () => {
    mesh = await startPackagesMesh(
      ['resource-registry', 'flow-orchestrator', 'flow-orchestrator-worker'],
      'stored-lock-test',
    );
  }, 180_000);

  afterAll(() => mesh?.stop(), 180_000);

  it('runs from the lock in the step, installed once under its hash', async () => {
    const stored = storedLock(mesh.npm);
    const job = await mesh.runFlow([step(npmLockText(stored))]);
    expect([job.status, job.result]).toEqual(['completed', 86_400_000]);
    expect(await readdir(mesh.packagesDir)).toEqual([stored.hash]);
    // The local registry's package (npm's own cache may hold its tarball), and nothing resolved.
    expect(await readFile(join(mesh.packagesDir, stored.hash, 'node_modules/ms/index.js'), 'utf8')).toBe(
      PACKAGE_FILES['ms@2.1.3']['index.js'],
    );
    expect(mesh.npm.requests.filter((path) => !path.endsWith('.tgz'))).toEqual([]);
  }, 240_000);

  it('without a lock the same step needs dependency-locker, which this mesh lacks', async () => {
    const job = await mesh.runFlow([step()]);
    expect(job.status).toBe('failed');
    expect(JSON.stringify(job.result)).toContain('could not be locked');
  }, 240_000);
});
