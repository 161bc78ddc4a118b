import { formatJsonPath, MeshError, type ValidationIssue } from './errors.js';

interface Pending {
  readonly value: object;
  readonly parent: Pending | undefined;
  readonly key: string | number | undefined;
}

// `String.prototype.isWellFormed` is ES2024 (Node 20+); the project's lib is ES2023.
const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

function pathOf(at: readonly PropertyKey[], entry: Pending | undefined, last?: string | number): string {
  const segments: PropertyKey[] = last === undefined ? [] : [last];
  for (let node = entry; node?.parent !== undefined; node = node.parent) segments.push(node.key!);
  return formatJsonPath([...at, ...segments.reverse()]);
}

/**
 * The path of the first string (value or key) in parsed JSON that holds a lone UTF-16
 * surrogate (`"\ud800"`), or `undefined` when there is none. `JSON.parse` accepts one, but no
 * UTF-8 encoder can carry it and PostgreSQL refuses it in `jsonb`/`text`, so every input is
 * checked where it is parsed instead of failing as a 500 at the first write. Walked without
 * recursion (the depth guard may not have run yet); a path is built only for the culprit. `at`:
 * where `value` sits in what the caller sent (`['body']`), the start of the path.
 */
export function findLoneSurrogate(value: unknown, at: readonly PropertyKey[] = []): string | undefined {
  if (typeof value === 'string') return isWellFormed(value) ? undefined : pathOf(at, undefined);
  if (typeof value !== 'object' || value === null) return undefined;
  const pending: Pending[] = [{ value, parent: undefined, key: undefined }];
  while (pending.length > 0) {
    const entry = pending.pop()!;
    const node = entry.value;
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        const child: unknown = node[index];
        if (typeof child === 'string') {
          if (!isWellFormed(child)) return pathOf(at, entry, index);
        } else if (typeof child === 'object' && child !== null)
          pending.push({ value: child, parent: entry, key: index });
      }
      continue;
    }
    for (const key in node) {
      if (!isWellFormed(key)) return pathOf(at, entry, key);
      const child: unknown = (node as Record<string, unknown>)[key];
      if (typeof child === 'string') {
        if (!isWellFormed(child)) return pathOf(at, entry, key);
      } else if (typeof child === 'object' && child !== null)
        pending.push({ value: child, parent: entry, key });
    }
  }
  return undefined;
}

export const LONE_SURROGATE_MESSAGE = 'holds a lone UTF-16 surrogate (not valid Unicode text)';

/** VALIDATION_FAILED naming the field of `value` that holds a lone surrogate, or `undefined`. */
export function loneSurrogateError(
  what: string,
  value: unknown,
  at: readonly PropertyKey[] = [],
): MeshError | undefined {
  const path = findLoneSurrogate(value, at);
  if (path === undefined) return undefined;
  const issues: ValidationIssue[] = [{ path, message: LONE_SURROGATE_MESSAGE }];
  return new MeshError('VALIDATION_FAILED', `invalid ${what}: ${path}: ${LONE_SURROGATE_MESSAGE}`, {
    issues,
  });
}
