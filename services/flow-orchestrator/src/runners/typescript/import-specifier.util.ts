/**
 * What a script's import may name. Until dependency-locker installs a script's lock into a
 * shared cache, a script can import Node built-ins and the packages installed beside the
 * worker; Deno's `npm:` form is read as the bare package name (its version is not honoured).
 */
export type ImportTarget =
  | { readonly kind: 'module'; readonly specifier: string }
  | { readonly kind: 'refused'; readonly reason: string };

export function importTarget(specifier: string): ImportTarget {
  if (specifier.startsWith('node:')) return { kind: 'module', specifier };
  if (specifier.startsWith('npm:')) return { kind: 'module', specifier: withoutVersion(specifier.slice(4)) };
  if (/^[a-z][a-z0-9+.-]*:/i.test(specifier)) {
    return {
      kind: 'refused',
      reason: `import of '${specifier}': URL and registry imports are not supported; import npm packages by name`,
    };
  }
  if (specifier.startsWith('.') || specifier.startsWith('/')) {
    return {
      kind: 'refused',
      reason: `import of '${specifier}': an inline script has no files beside it to import`,
    };
  }
  return { kind: 'module', specifier };
}

/** `lodash@4/fp` -> `lodash/fp`, `@scope/pkg@^1.2.0/sub` -> `@scope/pkg/sub`. */
function withoutVersion(spec: string): string {
  const scoped = spec.startsWith('@');
  const parts = spec.split('/');
  const nameIndex = scoped ? 1 : 0;
  const name = parts[nameIndex];
  if (name === undefined) return spec;
  const at = name.indexOf('@');
  if (at > 0) parts[nameIndex] = name.slice(0, at);
  return parts.join('/');
}

/** An import a script may not make, or that failed. */
export class ImportError extends Error {
  override readonly name = 'ImportError';
}

/** The module a script's `import` names, loaded beside the worker (built-in or package). */
export async function importForScript(specifier: string): Promise<unknown> {
  const target = importTarget(specifier);
  if (target.kind === 'refused') throw new ImportError(target.reason);
  try {
    return await import(target.specifier);
  } catch (error) {
    throw new ImportError(
      `import of '${specifier}' failed: ${(error as Error).message} (only Node built-ins and packages installed with the worker can be imported until scripts have locks)`,
    );
  }
}
