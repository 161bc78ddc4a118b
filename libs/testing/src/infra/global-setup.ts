import type { TestProject } from 'vitest/node';
import { testStreamEnv } from '../mesh/test-streams.js';
import { resolveTestInfrastructure } from './test-infrastructure.js';

/** Resolves NATS and Postgres once per run and hands them to every test worker via env. */
export default async function setup(_project: TestProject): Promise<() => Promise<void>> {
  const infra = await resolveTestInfrastructure();
  process.env.NATS_URL = infra.natsUrl;
  process.env.DATABASE_URL = infra.databaseUrl;
  // Every mesh a test starts (its processes inherit this env) keeps small streams in memory.
  Object.assign(process.env, testStreamEnv());
  // Marks every process of this run (test workers and the meshes they start), so a run killed
  // midway leaves nothing that `.ci/clean-test-leftovers.mjs` cannot find.
  process.env.FLOWMESH_TEST_RUN = String(process.pid);
  return () => infra.stop();
}
