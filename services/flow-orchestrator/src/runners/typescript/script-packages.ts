import { createRequire, isBuiltin } from 'node:module';
import type { TypescriptRequirements } from '@flowmesh/contracts';
import { ImportError } from './import-specifier.util.js';
import { scriptImports } from './typescript-source.util.js';

/** The npm package an import names, and the range it asks for (`npm:ms@2`, `ms@2`); none for built-ins, URLs and paths. */
export function packageOf(specifier: string): { name: string; range?: string } | undefined {
  if (specifier.startsWith('node:') || isBuiltin(specifier)) return undefined;
  const spec = specifier.startsWith('npm:') ? specifier.slice(4) : specifier;
  if (/^[a-z][a-z0-9+.-]*:/i.test(spec) || spec.startsWith('.') || spec.startsWith('/')) return undefined;
  const parts = spec.split('/');
  const scoped = spec.startsWith('@');
  const head = parts[scoped ? 1 : 0] ?? '';
  const at = head.indexOf('@');
  const bare = at > 0 ? head.slice(0, at) : head;
  const name = scoped ? `${parts[0]}/${bare}` : bare;
  return at > 0 ? { name, range: head.slice(at + 1) } : { name };
}

const besideWorker = new Map<string, boolean>();
const requireHere = createRequire(import.meta.url);

/** Whether a package is installed with the worker (resolvable from here). */
function installedWithWorker(name: string): boolean {
  let known = besideWorker.get(name);
  if (known === undefined) {
    known = [`${name}/package.json`, name].some((request) => {
      try {
        requireHere.resolve(request);
        return true;
      } catch {
        return false;
      }
    });
    besideWorker.set(name, known);
  }
  return known;
}

const REQUIREMENTS_KEPT = 1_000;
const requirementsOf = new Map<string, TypescriptRequirements>();

/**
 * The packages a script needs installed for it: every package it imports with a range, and every
 * package it imports that the worker does not have (at `latest`); the worker's own packages,
 * imported without a range, are used as they are. Kept per distinct script: a worker runs the
 * same scripts again and again. Throws `ImportError` for two ranges of one package.
 */
export function scriptRequirements(content: string): TypescriptRequirements {
  const kept = requirementsOf.get(content);
  if (kept) return kept;
  let imports: string[];
  try {
    imports = scriptImports(content);
  } catch {
    return {}; // the script's syntax error is reported when it runs
  }
  const requirements: Record<string, string> = {};
  for (const specifier of imports) {
    const wanted = packageOf(specifier);
    if (!wanted || (wanted.range === undefined && installedWithWorker(wanted.name))) continue;
    const range = wanted.range ?? 'latest';
    const other = requirements[wanted.name];
    if (other !== undefined && other !== range)
      throw new ImportError(
        `imports of ${wanted.name} ask for two versions (${other} and ${range}); import one`,
      );
    requirements[wanted.name] = range;
  }
  if (requirementsOf.size >= REQUIREMENTS_KEPT) requirementsOf.delete(requirementsOf.keys().next().value!);
  requirementsOf.set(content, requirements);
  return requirements;
}
