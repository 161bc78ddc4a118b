import { isBuiltin, stripTypeScriptTypes } from 'node:module';
import { init, parse } from 'es-module-lexer';
import type { FoundImport, ImportScanner } from './requirements-collector.js';
import { workspaceImportPath, type ImporterPlace } from './workspace-path.js';

await init;

/** What one import specifier of a TypeScript script asks for. */
export type TypescriptImport =
  | { readonly kind: 'npm'; readonly name: string; readonly range?: string }
  | { readonly kind: 'workspace'; readonly path: string }
  | { readonly kind: 'ignored'; readonly specifier: string; readonly why: string };

/** An npm package name (npm's own rules), with an optional `@scope/`. */
const NPM_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

/**
 * Sorts a specifier: `node:` and built-ins are ignored; `/f/...`, `/u/...`, `./x`, `../x` are
 * workspace scripts (normalized against the importer); `npm:x@r` (deno), `x`, `x@r`, `@s/x@r/sub`
 * are npm packages, the range kept as written (a pin stays a pin); URLs and `jsr:` are left to
 * their runtime.
 */
export function classifyTypescriptImport(specifier: string, importer: ImporterPlace): TypescriptImport {
  if (specifier.startsWith('node:') || isBuiltin(specifier))
    return { kind: 'ignored', specifier, why: 'built-in' };
  if (specifier.startsWith('/') || specifier.startsWith('./') || specifier.startsWith('../')) {
    const path = workspaceImportPath(specifier, importer);
    return path ? { kind: 'workspace', path } : { kind: 'ignored', specifier, why: 'outside the workspace' };
  }
  const spec = specifier.startsWith('npm:') ? specifier.slice(4) : specifier;
  if (/^[a-z][a-z0-9+.-]*:/i.test(spec)) return { kind: 'ignored', specifier, why: 'not an npm package' };
  const parts = spec.split('/');
  const scoped = spec.startsWith('@');
  const head = parts[scoped ? 1 : 0] ?? '';
  const at = head.indexOf('@');
  const bare = at > 0 ? head.slice(0, at) : head;
  const name = scoped ? `${parts[0]}/${bare}` : bare;
  if (!NPM_NAME.test(name)) return { kind: 'ignored', specifier, why: 'not an npm package name' };
  const range = at > 0 ? head.slice(at + 1) : undefined;
  return range ? { kind: 'npm', name, range } : { kind: 'npm', name };
}

/** The specifiers a TypeScript script imports (static, re-exports and dynamic with a literal). */
export function typescriptSpecifiers(source: string): string[] {
  const [imports] = parse(toJavaScript(source));
  const found = new Set<string>();
  for (const entry of imports) if (entry.n !== undefined) found.add(entry.n);
  return [...found];
}

function toJavaScript(source: string): string {
  try {
    return stripTypeScriptTypes(source, { mode: 'strip' });
  } catch {
    // Enums, namespaces, parameter properties: transform; a syntax error surfaces when it runs.
    return stripTypeScriptTypes(source, { mode: 'transform' });
  }
}

/** The packages and workspace scripts a TypeScript unit imports (`ImportScanner`). */
export const scanTypescriptImports: ImportScanner = (content, place) => {
  const found: FoundImport[] = [];
  for (const specifier of typescriptSpecifiers(content)) {
    const entry = classifyTypescriptImport(specifier, place);
    if (entry.kind === 'npm')
      found.push(
        entry.range
          ? { kind: 'package', name: entry.name, range: entry.range }
          : { kind: 'package', name: entry.name },
      );
    else if (entry.kind === 'workspace') found.push(entry);
  }
  return found;
};
