/**
 * The workspace script an import names, read as both dependency-locker (to follow it) and a
 * worker (to run it) read it, so they agree on what a script imports: `/f/lib/a` is `f/lib/a`;
 * `./a` and `../x/a` are read from `fromDir`, the folder the importer sits in (a script's folder;
 * for a flow step or an agent tool, the flow or the agent itself, as Windmill reads a flow step's:
 * `./a` in flow `f/app/main` is `f/app/main/a`). An extension is dropped. Undefined for anything
 * else (a package, a URL) and for a path that leaves the workspace (not under `f/<folder>/` or
 * `u/<user>/`).
 */
export function workspaceImportPath(specifier: string, fromDir: string): string | undefined {
  const relative = specifier.startsWith('./') || specifier.startsWith('../');
  if (!relative && !specifier.startsWith('/')) return undefined;
  const segments: string[] = [];
  for (const segment of `${relative ? `${fromDir}/` : ''}${specifier}`.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const path = segments.join('/').replace(/\.(?:ts|tsx|js|mjs|py)$/, '');
  return /^(?:f|u)\/[^/]+\/.+/.test(path) ? path : undefined;
}

/** Whether an import names a workspace script (`/...`, `./...`, `../...`) rather than a package. */
export function isWorkspaceImport(specifier: string): boolean {
  return specifier.startsWith('/') || specifier.startsWith('./') || specifier.startsWith('../');
}
