import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
/**
 * What a script's import may name: Node built-ins, the packages installed beside the worker, and
 * the packages installed for the script (its lock, `package-installer.ts`); Deno's `npm:` form and
 * a `pkg@range` name are read as the bare package name, whose version the lock pins.
 */
export type ImportTarget =
  | { readonly kind: 'module'; readonly specifier: string }
  | { readonly kind: 'refused'; readonly reason: string };

export function importTarget(specifier: string): ImportTarget {
  if (specifier.startsWith('node:')) return { kind: 'module', specifier };
  if (specifier.startsWith('npm:')) return { kind: 'module', specifier: withoutVersion(specifier.slice(4)) };
  if (!specifier.startsWith('.') && !specifier.startsWith('/') && !/^[a-z][a-z0-9+.-]*:/i.test(specifier))
    return { kind: 'module', specifier: withoutVersion(specifier) };
  if (/^[a-z][a-z0-9+.-]*:/i.test(specifier)) {
    return {
      kind: 'refused',
      reason: `import of '${specifier}': URL and registry imports are not supported; import npm packages by name`,
    };
  }
  if (specifier.startsWith('.') || specifier.startsWith('/')) {
    return {
      kind: 'refused',
      reason: `import of '${specifier}': not a workspace script this job read before it started (import /f/..., /u/... or a relative path, written as a literal)`,
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

/** The module a job's imports of its packages go through: `import()` resolves from its directory. */
export const PACKAGES_LOADER = 'load.mjs';

/** Packages installed for a job: the directory they are imported from, and their names. */
export interface JobPackages {
  readonly dir: string;
  readonly names: readonly string[];
}

/**
 * The module a script's `import` names: one of the job's own packages from their directory (through
 * its loader module, so Node resolves them from there), anything else beside the worker.
 */
export async function importForScript(specifier: string, packages?: JobPackages): Promise<unknown> {
  const target = importTarget(specifier);
  if (target.kind === 'refused') throw new ImportError(target.reason);
  const name = packageName(target.specifier);
  try {
    if (packages && packages.names.includes(name)) {
      const loader = (await import(pathToFileURL(join(packages.dir, PACKAGES_LOADER)).href)) as {
        default: (specifier: string) => Promise<unknown>;
      };
      return await loader.default(target.specifier);
    }
    return await import(target.specifier);
  } catch (error) {
    throw new ImportError(`import of '${specifier}' failed: ${(error as Error).message}`);
  }
}

/** `@scope/pkg/sub` -> `@scope/pkg`, `pkg/sub` -> `pkg`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}
