import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('../..', import.meta.url));

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
    include: [
      '{contracts,libs,services,cli}/**/*.spec.ts',
      '{services,libs,cli}/*/test/**/*.test.ts',
      'cli/test/**/*.test.ts',
      'e2e/**/*.test.ts',
      '{helm,deploy}/test/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
