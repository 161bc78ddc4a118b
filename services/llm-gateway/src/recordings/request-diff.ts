import { isDeepStrictEqual } from 'node:util';
import type { RequestDifference } from '@flowmesh/contracts';

/** Differences listed at most; a prompt rewritten from the first message on says enough in 20. */
const MAX_DIFFERENCES = 20;
/** A value longer than this (as JSON) is cut in a difference: a diff, not a copy of the prompt. */
const MAX_VALUE_CHARS = 300;

/**
 * The fields where `got` differs from `expected`, each by its path (`messages[3].content[0].text`),
 * depth first in the order of the expected request; a field only one side has is absent on the
 * other. Strings are compared whole (a changed prompt is one difference, not one per character).
 */
export function requestDifferences(expected: unknown, got: unknown): RequestDifference[] {
  const differences: RequestDifference[] = [];
  walk(expected, got, '', differences);
  return differences.slice(0, MAX_DIFFERENCES);
}

/** How many fields differ, uncapped: which recorded request a new one is closest to. */
export function differenceCount(expected: unknown, got: unknown): number {
  const differences: RequestDifference[] = [];
  walk(expected, got, '', differences);
  return differences.length;
}

function walk(expected: unknown, got: unknown, path: string, out: RequestDifference[]): void {
  if (isDeepStrictEqual(expected, got)) return;
  if (Array.isArray(expected) && Array.isArray(got)) {
    for (let index = 0; index < Math.max(expected.length, got.length); index++)
      walk(expected[index], got[index], `${path}[${index}]`, out);
    return;
  }
  if (isRecord(expected) && isRecord(got)) {
    const keys = [...Object.keys(expected), ...Object.keys(got).filter((key) => !(key in expected))];
    for (const key of keys) walk(expected[key], got[key], path ? `${path}.${key}` : key, out);
    return;
  }
  out.push({
    path: path || '(request)',
    ...(expected === undefined ? {} : { expected: shortened(expected) }),
    ...(got === undefined ? {} : { got: shortened(got) }),
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function shortened(value: unknown): unknown {
  const json = JSON.stringify(value);
  if (json.length <= MAX_VALUE_CHARS) return value;
  return typeof value === 'string'
    ? `${value.slice(0, MAX_VALUE_CHARS)}… (${value.length} characters)`
    : `${json.slice(0, MAX_VALUE_CHARS)}… (${json.length} characters of JSON)`;
}

/** `messages[3].content[0].text: expected "a" got "b"`, for error messages. */
export function describeDifference(difference: RequestDifference): string {
  const side = (value: unknown) => (value === undefined ? '(absent)' : JSON.stringify(value));
  return `${difference.path}: expected ${side(difference.expected)}, got ${side(difference.got)}`;
}
