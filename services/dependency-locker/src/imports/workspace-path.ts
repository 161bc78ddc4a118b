import { workspaceImportPath as importPathFrom, type LockOwnerKind } from '@flowmesh/contracts';

/** Where an importer's code sits: a relative import is read from there. */
export interface ImporterPlace {
  readonly kind: LockOwnerKind;
  readonly path: string;
}

/**
 * The workspace script a `/f/...`, `/u/...`, `./x` or `../x` import names (`f/lib/a`), or undefined
 * when it leaves the workspace. A script's relative imports are read from its folder; a flow's
 * step or an agent's tool is read as if it sat at `<owner>/flow` or `<owner>/agent`, as Windmill
 * reads a flow step's (`./a` in flow `f/app/main` is `f/app/main/a`); workers read them the same
 * way (`workspaceImportPath` in contracts).
 */
export function workspaceImportPath(specifier: string, importer: ImporterPlace): string | undefined {
  const slash = importer.path.lastIndexOf('/');
  const base = importer.kind === 'script' ? importer.path.slice(0, Math.max(slash, 0)) : importer.path;
  return importPathFrom(specifier, base);
}
