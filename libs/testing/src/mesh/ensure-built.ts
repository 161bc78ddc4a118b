import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

let built = false;
// A failed build fails every later caller in this process at once, instead of rebuilding.
let failure: Error | undefined;

/**
 * Tests that start services as OS processes run their build output (`dist/`), so the build must
 * match the sources. `tsc -b` is incremental (a second or two when nothing changed); `flock`
 * serialises it across vitest's parallel workers. `FLOWMESH_SKIP_BUILD=1` skips it where the
 * build already ran (CI builds before testing).
 */
export function ensureBuilt(env: NodeJS.ProcessEnv = process.env): void {
  if (built || env.FLOWMESH_SKIP_BUILD === '1') return;
  if (failure) throw failure;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const lockDir = join(REPO_ROOT, 'node_modules', '.cache');
  mkdirSync(lockDir, { recursive: true });
  const result = spawnSync('flock', [join(lockDir, 'flowmesh-build.lock'), process.execPath, tsc, '-b'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  if (result.error) failure = new Error(`cannot build before starting the mesh: ${result.error.message}`);
  else if (result.status !== 0) {
    failure = new Error(`npm run build failed, so the mesh cannot start:\n${result.stdout}${result.stderr}`);
  }
  if (failure) throw failure;
  built = true;
}
