import { formatJsonPath, type JsonChange } from '@flowmesh/contracts';

/**
 * Every difference between two JSON documents, in document order, with paths like
 * `value.tools[1].summary`. Objects compare key by key; arrays compare index by index (an item
 * inserted at the front shows as changes down the list, which is what a reviewer reads anyway
 * for prompts and tool lists, and keeps the output predictable).
 */
export function diffJson(from: unknown, to: unknown): JsonChange[] {
  const changes: JsonChange[] = [];
  walk(from, to, [], changes);
  return changes;
}

function walk(from: unknown, to: unknown, path: PropertyKey[], changes: JsonChange[]): void {
  if (isPlainObject(from) && isPlainObject(to)) {
    for (const key of Object.keys(from)) {
      if (!Object.hasOwn(to, key))
        changes.push({ op: 'removed', path: formatJsonPath([...path, key]), from: from[key] });
      else walk(from[key], to[key], [...path, key], changes);
    }
    for (const key of Object.keys(to)) {
      if (!Object.hasOwn(from, key))
        changes.push({ op: 'added', path: formatJsonPath([...path, key]), to: to[key] });
    }
    return;
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    const shared = Math.min(from.length, to.length);
    for (let i = 0; i < shared; i++) walk(from[i], to[i], [...path, i], changes);
    for (let i = shared; i < from.length; i++)
      changes.push({ op: 'removed', path: formatJsonPath([...path, i]), from: from[i] });
    for (let i = shared; i < to.length; i++)
      changes.push({ op: 'added', path: formatJsonPath([...path, i]), to: to[i] });
    return;
  }
  if (!jsonEqual(from, to)) changes.push({ op: 'changed', path: formatJsonPath(path), from, to });
}

/** Structural equality of JSON values; object key order does not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  if (isPlainObject(a)) {
    if (!isPlainObject(b)) return false;
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]))
    );
  }
  return false;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
