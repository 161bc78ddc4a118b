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

/**
 * The workspace scripts python code imports, as specifiers `workspaceImportPath` reads
 * (`/f/lib/a`, `./sibling`, `../other/x`), by Windmill's names: `import f.lib.a`,
 * `from f.lib.a import x`, `from f.lib import a`, `from .sibling import y`, `from . import sibling`,
 * `from ..other.x import z`. Lines at any indentation; packages and the standard library are not here.
 */
export function pythonWorkspaceImports(content: string): string[] {
  const found: string[] = [];
  const names = (list: string) =>
    list
      .replace(/[()]/g, '')
      .split(',')
      .map((n) => n.trim().split(/\s+/)[0] ?? '')
      .filter((n) => /^[A-Za-z_]\w*$/.test(n));
  for (const line of content.split('\n')) {
    const from = /^\s*from\s+(\.*)([\w.]*)\s+import\s+(.+)$/.exec(line);
    if (from) {
      const [, dots = '', module = '', imported = ''] = from;
      const parts = module === '' ? [] : module.split('.');
      if (dots !== '') {
        const up = dots.length === 1 ? './' : '../'.repeat(dots.length - 1);
        if (parts.length > 0) found.push(up + parts.join('/'));
        else for (const name of names(imported)) found.push(up + name);
      } else if ((parts[0] === 'f' || parts[0] === 'u') && parts.length >= 3)
        found.push(`/${parts.join('/')}`);
      else if ((parts[0] === 'f' || parts[0] === 'u') && parts.length === 2)
        for (const name of names(imported)) found.push(`/${parts.join('/')}/${name}`);
      continue;
    }
    const plain = /^\s*import\s+(.+)$/.exec(line);
    if (!plain) continue;
    for (const module of plain[1].split(',').map((m) => m.trim().split(/\s+/)[0] ?? '')) {
      const parts = module.split('.');
      if ((parts[0] === 'f' || parts[0] === 'u') && parts.length >= 3) found.push(`/${parts.join('/')}`);
    }
  }
  return [...new Set(found)];
}
