import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { REPO_ROOT } from '@flowmesh/testing';

/**
 * Builds the CLI alone (not the whole repository, which other work in progress may break); not
 * where the build already ran (`FLOWMESH_SKIP_BUILD=1`, as CI sets after `npm run build`).
 */
export function buildCli(): void {
  if (process.env.FLOWMESH_SKIP_BUILD === '1') return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const lockDir = join(REPO_ROOT, 'node_modules', '.cache');
  mkdirSync(lockDir, { recursive: true });
  const result = spawnSync(
    'flock',
    [join(lockDir, 'flowmesh-build.lock'), process.execPath, tsc, '-b', 'cli'],
    {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    },
  );
  if (result.status !== 0) throw new Error(`cannot build the CLI:\n${result.stdout}${result.stderr}`);
  process.env.FLOWMESH_SKIP_BUILD = '1';
}
