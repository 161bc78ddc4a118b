/**
 * Which step results an expression reads: `results.a`, `results?.a`, `results["a"]`. When it
 * uses `results` any other way (`results[x]`, `Object.keys(results)`), every result is needed.
 */
const DIRECT =
  /\bresults\s*(?:\?\.|\.)\s*([A-Za-z_$][\w$]*)|\bresults\s*(?:\?\.)?\[\s*(['"])([^'"]+)\2\s*\]/g;
const ANY = /\bresults\b/g;

export interface ResultReferences {
  readonly ids: readonly string[];
  readonly all: boolean;
}

const cache = new Map<string, ResultReferences>();

export function referencedResults(expr: string): ResultReferences {
  const cached = cache.get(expr);
  if (cached) return cached;
  const ids = new Set<string>();
  let direct = 0;
  for (const match of expr.matchAll(DIRECT)) {
    ids.add(match[1] ?? match[3]);
    direct += 1;
  }
  const total = expr.match(ANY)?.length ?? 0;
  const references = { ids: [...ids], all: total > direct };
  if (cache.size > 10_000) cache.clear();
  cache.set(expr, references);
  return references;
}
