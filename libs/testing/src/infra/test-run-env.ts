import { testStreamEnv } from '../mesh/test-streams.js';

/**
 * What every process a test starts carries, also one started with a bare environment: the run's
 * mark (so `.ci/clean-test-leftovers.mjs` finds what a killed run left running) and the small
 * in-memory streams of tests.
 */
export function testRunEnv(): Record<string, string> {
  return {
    ...(process.env.FLOWMESH_TEST_RUN ? { FLOWMESH_TEST_RUN: process.env.FLOWMESH_TEST_RUN } : {}),
    ...testStreamEnv(),
  };
}
