import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Suites that start a whole mesh of processes and load the machine on their own (hundreds of
 * flows, SIGKILLs and restarts, the CLI starting everything): they run after the others, one at a
 * time, so two of them never share the cores with each other.
 */
const HEAVY = [
  'services/flow-orchestrator/test/conformance/**/*.test.ts',
  'services/flow-orchestrator/test/durability.test.ts',
  'services/flow-orchestrator/test/durability-completions.test.ts',
  'services/flow-orchestrator/test/registry-restart.test.ts',
  'services/flow-orchestrator/test/schedules-durability.test.ts',
  'services/flow-orchestrator/test/loop-control.test.ts',
  // Seven processes SIGKILLed and restarted: beside other suites it ran PostgreSQL out of
  // connections ("too many clients") under busy cores, failing them and itself.
  'services/agent-runtime/test/agent-chaos.test.ts',
  'e2e/**/*.test.ts',
];

/**
 * Suites that need modules loaded fresh: OpenTelemetry's globals register once per process, and
 * its instrumentations patch `pg` and `http` only when they load first. They keep their isolation.
 */
const FRESH_MODULES = [
  'libs/telemetry/test/**/*.test.ts',
  'libs/messaging/test/tracing.test.ts',
  'services/llm-gateway/test/http-genai-tracing.test.ts',
  // They set the global meter provider and read the failure counters it collects.
  'services/llm-gateway/test/fault-classes.test.ts',
  'services/llm-gateway/test/http-fault-classes.test.ts',
];

// Test files at once: one per core (FLOWMESH_TEST_WORKERS overrides).
const workers = Number(process.env.FLOWMESH_TEST_WORKERS) || Math.max(1, availableParallelism());

// One config for the whole monorepo. Workspace packages resolve to their TypeScript
// sources through the `@flowmesh/source` export condition, so tests never need a build.
// SWC compiles the sources because Nest relies on decorator metadata, which esbuild drops.
export default defineConfig({
  root,
  plugins: [
    swc.vite({
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
      },
    }),
  ],
  resolve: { conditions: ['@flowmesh/source'] },
  ssr: { resolve: { conditions: ['@flowmesh/source'] } },
  test: {
    globalSetup: ['libs/testing/src/infra/global-setup.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    // What a user would call broken, not what an idle machine takes: a CLI call or a mesh start
    // can take ten times longer with every core busy.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          // Unit specs (a service's own code, its ports stubbed) share one module cache per
          // worker: loading Nest and the contracts again for each of a hundred files took longer
          // than the tests. Each spec restores what it changes (timers, env).
          name: 'unit',
          include: ['{contracts,libs,services,cli}/**/*.spec.ts'],
          exclude: ['**/node_modules/**', '**/dist/**'],
          isolate: false,
          maxWorkers: workers,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          // Integration suites share a module cache per worker too: importing Nest, the contracts
          // and the test support again for each of ~80 files cost 205 s of 404 (2 workers, idle);
          // shared, the project takes 250 s. Each suite starts its own services and mesh, and
          // restores what it changes.
          name: 'suite',
          include: [
            '{services,libs,cli}/*/test/**/*.test.ts',
            'cli/test/**/*.test.ts',
            '{helm,deploy}/test/**/*.test.ts',
          ],
          exclude: ['**/node_modules/**', '**/dist/**', ...HEAVY, ...FRESH_MODULES],
          isolate: false,
          maxWorkers: workers,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'fresh-modules',
          include: FRESH_MODULES,
          // Last, one at a time: two of its suites start a gateway each, and beside the suite
          // project's files that made four meshes at once on a busy 2-core CI run. (Vitest wants
          // one maxWorkers per group.)
          maxWorkers: 1,
          sequence: { groupOrder: 3 },
        },
      },
      {
        extends: true,
        test: {
          name: 'heavy',
          include: HEAVY,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
