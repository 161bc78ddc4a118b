import { createHash } from 'node:crypto';

export interface ScriptCode {
  readonly path: string;
  readonly language: string;
  readonly content: string;
  readonly lock: string | null;
  readonly schema: Record<string, unknown> | null;
}

/**
 * The name of a script version: SHA-256 (hex) of what it runs, as canonical JSON. The path is
 * part of it so that two scripts with the same code remain two versions (a hash names exactly
 * one path), and the schema of `main`'s arguments is, since a caller relies on it as much as on
 * the code. Labels (summary, description) are not: relabelling writes no new version.
 */
export function scriptHash(code: ScriptCode): string {
  const canonical = canonicalJson({
    path: code.path,
    language: code.language,
    content: code.content,
    lock: code.lock,
    schema: code.schema,
  });
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/** JSON with object keys sorted at every level, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
