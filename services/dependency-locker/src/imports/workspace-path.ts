import { posix } from 'node:path';
import type { LockOwnerKind } from '@flowmesh/contracts';

/** Where an importer's code sits: a relative import is read from there. */
export interface ImporterPlace {
  readonly kind: LockOwnerKind;
  readonly path: string;
}

/**
 * The workspace script a `/f/...`, `/u/...`, `./x` or `../x` import names (`f/lib/a`), or undefined
 * when it leaves the workspace. A script's relative imports are read from its folder; a flow's
 * step or an agent's tool is read as if it sat at `<owner>/flow` or `<owner>/agent`, as Windmill
 * reads a flow step's (`./a` in flow `f/app/main` is `f/app/main/a`). An extension is dropped.
 */
export function workspaceImportPath(specifier: string, importer: ImporterPlace): string | undefined {
  const base = importer.kind === 'script' ? posix.dirname(importer.path) : `${importer.path}`;
  const joined = specifier.startsWith('/') ? posix.normalize(specifier) : posix.join('/', base, specifier);
  const path = joined.slice(1).replace(/\.(?:ts|tsx|js|mjs|py)$/, '');
  return /^(?:f|u)\/[^/]+\/.+/.test(path) ? path : undefined;
}
