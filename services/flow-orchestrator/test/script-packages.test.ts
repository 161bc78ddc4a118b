import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isTerminalJobStatus, type Job, type OrchestratorJobsClient } from '@flowmesh/contracts';
import { waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_FILES, startPackagesMesh, type PackagesMesh } from './support/packages-mesh.js';

const script = (content: string) => ({
  id: 'step',
  value: { type: 'rawscript', language: 'bun', content, input_transforms: {} },
});

// A worker runs scripts that import npm packages it does not have: dependency-locker locks them
// against a local npm registry (offline), the worker installs each lock once from the tarballs it
// names. Every process is real.
describe('flow-orchestrator: scripts import npm packages, locked and installed', () => {
  let packages: PackagesMesh;
  let jobs: OrchestratorJobsClient;
  let packagesDir: string;
  let inMain: PackagesMesh['inMain'];
  const run = (content: string): Promise<Job> => packages.runFlow([script(content)]);

  beforeAll(async () => {
    packages = await startPackagesMesh(
      ['resource-registry', 'flow-orchestrator', 'flow-orchestrator-worker', 'dependency-locker'],
      'packages-test',
    );
    ({ jobs, packagesDir, inMain } = packages);
  }, 180_000);

  afterAll(() => packages?.stop(), 180_000);

  it('a package pinned with npm: is locked, installed once, and imported at that version', async () => {
    const content = `import ms from 'npm:ms@2.1.3';
import isOdd from 'is-odd';
export function main() { return { day: ms('1d'), odd: isOdd(3) }; }`;
    const first = await run(content);
    expect([first.status, first.result]).toEqual(['completed', { day: 86_400_000, odd: true }]);
    // One directory per lock, whole (its staging directory renamed at the end).
    const installed = await readdir(packagesDir);
    expect(installed).toHaveLength(1);
    expect(installed[0]).toMatch(/^[0-9a-f]{64}$/);
    const modules = await readdir(join(packagesDir, installed[0], 'node_modules'));
    expect(modules).toEqual(expect.arrayContaining(['ms', 'is-odd', 'is-number']));
    // The local registry's packages (npm's own cache may hold their tarballs from an earlier run).
    for (const [name, version] of [
      ['ms', '2.1.3'],
      ['is-odd', '3.0.1'],
      ['is-number', '6.0.0'],
    ])
      expect(await readFile(join(packagesDir, installed[0], 'node_modules', name, 'index.js'), 'utf8')).toBe(
        PACKAGE_FILES[`${name}@${version}` as keyof typeof PACKAGE_FILES]['index.js'],
      );

    // The job that prepared them says so in its log.
    const log = (await jobs.logs({ ...inMain, id: first.flow_status!.modules[0].job! })).logs;
    expect(log).toContain(
      `flowmesh: installing the npm packages this script imports (ms@2.1.3, is-odd@latest), lock ${installed[0].slice(0, 12)}`,
    );
    expect(log).toMatch(/flowmesh: npm packages installed in \d+ ms/);

    // Again: the same lock, nothing installed anew (and nothing said of it).
    const again = await run(content);
    expect(again.result).toEqual({ day: 86_400_000, odd: true });
    expect(await readdir(packagesDir)).toEqual(installed);
    expect((await jobs.logs({ ...inMain, id: again.flow_status!.modules[0].job! })).logs).not.toContain(
      'flowmesh: installing',
    );
  }, 180_000);

  it('a same_worker flow (each step a process in its own directory) imports them too', async () => {
    const { job_id: id } = await jobs.runFlow({
      ...inMain,
      value: {
        same_worker: true,
        modules: [
          script(`import isOdd from 'npm:is-odd@3.0.1';\nexport function main() { return isOdd(7); }`),
        ],
      },
    });
    const job = await waitFor(
      async () => {
        const found = await jobs.get({ ...inMain, id });
        return isTerminalJobStatus(found.status) ? found : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 100, description: `flow ${id} to end` },
    );
    // is-odd is not installed with the worker: only the installed lock has it.
    expect([job.status, job.result]).toEqual(['completed', true]);
  }, 180_000);

  it('a package the registry does not have fails the step naming it, before the script runs', async () => {
    const failed = await run(`import nothing from 'flowmesh-no-such-package-7f3a';
export function main() { return nothing; }`);
    expect(failed.status).toBe('failed');
    expect(failed.result).toMatchObject({
      error: {
        name: 'ImportError',
        message: expect.stringContaining(
          'requirements.flowmesh-no-such-package-7f3a: not found in the npm registry',
        ) as unknown,
      },
    });
  }, 180_000);
});
