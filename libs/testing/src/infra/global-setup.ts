import type { TestProject } from 'vitest/node';
import { resolveTestInfrastructure } from './test-infrastructure.js';

/** Resolves NATS and Postgres once per run and hands them to every test worker via env. */
export default async function setup(_project: TestProject): Promise<() => Promise<void>> {
  const infra = await resolveTestInfrastructure();
  process.env.NATS_URL = infra.natsUrl;
  process.env.DATABASE_URL = infra.databaseUrl;
  return () => infra.stop();
}
