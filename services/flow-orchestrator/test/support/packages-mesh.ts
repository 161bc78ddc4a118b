import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createOrchestratorJobsClient,
  isTerminalJobStatus,
  type Job,
  type OrchestratorJobsClient,
} from '@flowmesh/contracts';
import { connectMesh, MeshClient, type MeshConnection } from '@flowmesh/messaging';
import {
  startMesh,
  startPackumentRegistry,
  waitFor,
  type PackumentRegistry,
  type TestMesh,
} from '@flowmesh/testing';

/**
 * The packages the worker tests import, served by a local registry (no public registry is asked):
 * small stand-ins for `ms`, `is-odd` and the `is-number` it depends on, doing what the tests use.
 */
const PACKAGES = {
  ms: { '2.1.3': {} },
  'is-number': { '6.0.0': {} },
  'is-odd': { '3.0.1': { 'is-number': '^6.0.0' } },
};
export const PACKAGE_FILES = {
  'ms@2.1.3': {
    'index.js': `const units = { ms: 1, s: 1e3, m: 6e4, h: 36e5, d: 864e5 };
module.exports = (text) => {
  const [, n, unit] = /^(\\d+)(ms|s|m|h|d)$/.exec(text);
  return Number(n) * units[unit];
};
`,
  },
  'is-number@6.0.0': { 'index.js': `module.exports = (n) => typeof n === 'number' && Number.isFinite(n);\n` },
  'is-odd@3.0.1': {
    'index.js': `const isNumber = require('is-number');
module.exports = (n) => {
  if (!isNumber(n)) throw new TypeError('expected a number');
  return Math.abs(n % 2) === 1;
};
`,
  },
};

export interface PackagesMesh {
  readonly mesh: TestMesh;
  readonly jobs: OrchestratorJobsClient;
  /** A client of the mesh on its subject prefix, for other typed clients. */
  readonly client: MeshClient;
  readonly inMain: { actor: { token: string }; workspace: string };
  /** Where the worker installs packages (`FLOWMESH_PACKAGES_DIR`). */
  readonly packagesDir: string;
  /** The npm registry dependency-locker resolves against and locks' tarballs come from. */
  readonly npm: PackumentRegistry;
  /** Runs a flow of these modules and waits until it ends. */
  runFlow(modules: unknown[]): Promise<Job>;
  stop(): Promise<void>;
}

/**
 * A mesh of `processes` (real processes) whose worker installs npm packages into a directory of
 * the test's own, with an admin client on its subject prefix. Packages come from a local registry
 * (`PACKAGES`): dependency-locker resolves against it, a lock's tarballs are fetched from it.
 */
export async function startPackagesMesh(processes: readonly string[], name: string): Promise<PackagesMesh> {
  const packagesDir = await mkdtemp(join(tmpdir(), `flowmesh-${name}-`));
  // The worker installs here; scripts, as the sandbox's user, import from here.
  await chmod(packagesDir, 0o755);
  const actor = { token: `fm_pkg_${randomBytes(24).toString('base64url')}` };
  const inMain = { actor, workspace: 'main' };
  const npm = await startPackumentRegistry(PACKAGES, PACKAGE_FILES);
  const mesh = await startMesh({
    processes,
    env: {
      FLOWMESH_ADMIN_TOKEN: actor.token,
      FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
      FLOWMESH_PACKAGES_DIR: packagesDir,
      FLOWMESH_LOCKER_NPM_REGISTRY: npm.url,
      FLOWMESH_NPM_REGISTRY: npm.url,
      LOG_LEVEL: 'warn',
    },
  });
  const conn: MeshConnection = await connectMesh({
    url: mesh.env.NATS_URL,
    name,
    prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
  });
  const client = new MeshClient(conn);
  const jobs = createOrchestratorJobsClient(client);
  return {
    mesh,
    jobs,
    client,
    inMain,
    packagesDir,
    npm,
    async runFlow(modules) {
      const { job_id: id } = await jobs.runFlow({ ...inMain, value: { modules } });
      return waitFor(
        async () => {
          const job = await jobs.get({ ...inMain, id });
          return isTerminalJobStatus(job.status) ? job : undefined;
        },
        { timeoutMs: 180_000, intervalMs: 100, description: `flow ${id} to end` },
      );
    },
    async stop() {
      await conn.drain().catch(() => undefined);
      await mesh.stop();
      await npm.close();
      await rm(packagesDir, { recursive: true, force: true });
    },
  };
}
