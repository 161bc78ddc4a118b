/**
 * Exact comparison of JSON values, with a few markers for the parts of a result that are
 * implementation-defined (a stack trace, a uuid, an engine's wording of a timeout):
 * - `{ $regex: "..." }` a string matching the pattern (a leading `(?i)` makes it case-insensitive);
 * - `{ $any: true }` any value that is present;
 * - `{ $partial: {...} }` an object holding at least these keys, each matching;
 * - `{ $length: n }` an array of n items.
 * Everything else must be equal: objects have exactly the expected keys, arrays the same items
 * in the same order. In `partialObjects` mode every plain object is matched as `$partial`
 * (used for flow_status, which carries many fields a case does not name).
 */
export interface MatchOptions {
  readonly partialObjects?: boolean;
}

export function mismatches(
  actual: unknown,
  expected: unknown,
  options: MatchOptions = {},
  path = '$',
): string[] {
  if (isMarker(expected, '$regex')) {
    const source = String(expected.$regex);
    const regex = source.startsWith('(?i)') ? new RegExp(source.slice(4), 'i') : new RegExp(source);
    return typeof actual === 'string' && regex.test(actual)
      ? []
      : [`${path}: expected a string matching /${source}/, got ${show(actual)}`];
  }
  if (isMarker(expected, '$any'))
    return actual === undefined ? [`${path}: expected a value, got nothing`] : [];
  if (isMarker(expected, '$length')) {
    return Array.isArray(actual) && actual.length === expected.$length
      ? []
      : [`${path}: expected an array of ${String(expected.$length)} items, got ${show(actual)}`];
  }
  if (isMarker(expected, '$partial')) return objectMismatches(actual, expected.$partial, options, path, true);
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${show(actual)}`];
    if (actual.length !== expected.length)
      return [`${path}: expected ${expected.length} items, got ${actual.length}: ${show(actual)}`];
    return expected.flatMap((item, index) => mismatches(actual[index], item, options, `${path}[${index}]`));
  }
  if (isPlainObject(expected))
    return objectMismatches(actual, expected, options, path, options.partialObjects);
  return Object.is(actual, expected) || actual === expected
    ? []
    : [`${path}: expected ${show(expected)}, got ${show(actual)}`];
}

function objectMismatches(
  actual: unknown,
  expected: unknown,
  options: MatchOptions,
  path: string,
  partial = false,
): string[] {
  if (!isPlainObject(expected)) return [`${path}: bad $partial marker`];
  if (!isPlainObject(actual)) return [`${path}: expected an object, got ${show(actual)}`];
  const problems = Object.entries(expected).flatMap(([key, value]) =>
    key in actual
      ? mismatches(actual[key], value, options, `${path}.${key}`)
      : [`${path}.${key}: missing (expected ${show(value)})`],
  );
  if (!partial) {
    for (const key of Object.keys(actual))
      if (!(key in expected)) problems.push(`${path}.${key}: unexpected key (value ${show(actual[key])})`);
  }
  return problems;
}

function isMarker<K extends string>(value: unknown, key: K): value is Record<K, unknown> {
  return isPlainObject(value) && Object.keys(value).length === 1 && key in value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  if (value === undefined) return 'undefined';
  const text = JSON.stringify(value);
  return text.length > 300 ? `${text.slice(0, 300)}...` : text;
}
