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
import { startMesh, waitFor, type TestMesh } from '@flowmesh/testing';

export interface PackagesMesh {
  readonly mesh: TestMesh;
  readonly jobs: OrchestratorJobsClient;
  readonly inMain: { actor: { token: string }; workspace: string };
  /** Where the worker installs packages (`FLOWMESH_PACKAGES_DIR`). */
  readonly packagesDir: string;
  /** Runs a flow of these modules and waits until it ends. */
  runFlow(modules: unknown[]): Promise<Job>;
  stop(): Promise<void>;
}

/**
 * A mesh of `processes` (real processes) whose worker installs npm packages into a directory of
 * the test's own, with an admin client on its subject prefix.
 */
export async function startPackagesMesh(processes: readonly string[], name: string): Promise<PackagesMesh> {
  const packagesDir = await mkdtemp(join(tmpdir(), `flowmesh-${name}-`));
  // The worker installs here; scripts, as the sandbox's user, import from here.
  await chmod(packagesDir, 0o755);
  const actor = { token: `fm_pkg_${randomBytes(24).toString('base64url')}` };
  const inMain = { actor, workspace: 'main' };
  const mesh = await startMesh({
    processes,
    env: {
      FLOWMESH_ADMIN_TOKEN: actor.token,
      FLOWMESH_ADMIN_EMAIL: 'admin@example.test',
      FLOWMESH_PACKAGES_DIR: packagesDir,
      LOG_LEVEL: 'warn',
    },
  });
  const conn: MeshConnection = await connectMesh({
    url: mesh.env.NATS_URL,
    name,
    prefix: mesh.env.FLOWMESH_SUBJECT_PREFIX,
  });
  const jobs = createOrchestratorJobsClient(new MeshClient(conn));
  return {
    mesh,
    jobs,
    inMain,
    packagesDir,
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
      await rm(packagesDir, { recursive: true, force: true });
    },
  };
}
