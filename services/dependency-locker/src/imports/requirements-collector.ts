import type { ImporterPlace } from './workspace-path.js';

/** What a piece of code imports: packages (a range when it asks for one) and workspace scripts. */
export type FoundImport =
  | { readonly kind: 'package'; readonly name: string; readonly range?: string }
  | { readonly kind: 'workspace'; readonly path: string };
export type ImportScanner = (content: string, place: ImporterPlace) => FoundImport[];

/** Code of a workspace script as last deployed, as the collector follows imports into it. */
export interface ScriptSource {
  readonly language: string;
  readonly content: string;
  /** The deployed version this code is (its script hash). */
  readonly version: string;
}
export type ScriptSourceLookup = (path: string) => Promise<ScriptSource | undefined>;

export interface CollectedRequirements {
  /** Package to range: the unit's own ranges, then pins of the scripts it imports (nearest first), else `latest`. */
  readonly requirements: Record<string, string>;
  /** Workspace scripts the code imports itself: these become dependency edges. */
  readonly directImports: string[];
  /** Every workspace script followed (direct or not) and the version its code was read from. */
  readonly scripts: Record<string, string>;
}

export class LockInputError extends Error {}

/** Workspace imports followed this deep at most (a longer chain is a mistake, or a cycle). */
const MAX_DEPTH = 32;

/**
 * The package requirements of a unit, its workspace imports followed (breadth first, each script
 * once, so a cycle ends). Unlike Windmill (issue #11080), a pin in an imported script is kept:
 * `import x from 'fm-alpha@1.0.0'` in `/f/lib/a` locks 1.0.0 for every importer that does not
 * ask for a range of its own. `latest` stands for "any version".
 */
export async function collectRequirements(
  unit: { readonly content: string; readonly place: ImporterPlace },
  scan: ImportScanner,
  lookup: ScriptSourceLookup,
): Promise<CollectedRequirements> {
  const own = new Map<string, string | undefined>();
  const pinned = new Map<string, string>();
  const directImports: string[] = [];
  const scripts: Record<string, string> = {};
  const seen = new Set<string>(unit.place.kind === 'script' ? [unit.place.path] : []);
  let level: Array<{ content: string; place: ImporterPlace }> = [unit];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > MAX_DEPTH) throw new LockInputError(`workspace imports nest deeper than ${MAX_DEPTH}`);
    const next: Array<{ content: string; place: ImporterPlace }> = [];
    for (const code of level) {
      for (const found of scanned(scan, code.content, code.place)) {
        if (found.kind === 'package') {
          if (depth === 0) {
            const other = own.get(found.name);
            if (other !== undefined && found.range !== undefined && other !== found.range)
              throw new LockInputError(
                `imports of ${found.name} ask for two versions (${other} and ${found.range}); import one`,
              );
            own.set(found.name, found.range ?? other);
          } else if (found.range !== undefined && !pinned.has(found.name)) {
            pinned.set(found.name, found.range);
          } else if (!pinned.has(found.name) && !own.has(found.name)) {
            own.set(found.name, own.get(found.name));
          }
        } else if (found.kind === 'workspace') {
          if (depth === 0 && !directImports.includes(found.path)) directImports.push(found.path);
          if (seen.has(found.path)) continue;
          seen.add(found.path);
          const source = await lookup(found.path);
          if (!source)
            throw new LockInputError(
              `imports /${found.path}, a script dependency-locker has not seen deployed (deploy it, then this again)`,
            );
          scripts[found.path] = source.version;
          next.push({
            content: source.content,
            place: { kind: 'script', path: found.path },
          });
        }
      }
    }
    level = next;
  }
  const requirements: Record<string, string> = {};
  for (const [name, range] of own) requirements[name] = range ?? pinned.get(name) ?? 'latest';
  for (const [name, range] of pinned) requirements[name] ??= range;
  return {
    requirements: Object.fromEntries(Object.entries(requirements).sort(([a], [b]) => a.localeCompare(b))),
    directImports,
    scripts: Object.fromEntries(Object.entries(scripts).sort(([a], [b]) => a.localeCompare(b))),
  };
}

function scanned(scan: ImportScanner, content: string, place: ImporterPlace): FoundImport[] {
  try {
    return scan(content, place);
  } catch (error) {
    throw new LockInputError(`${place.path}: its imports could not be read (${(error as Error).message})`);
  }
}
