import type { z } from 'zod';
import { describeValue } from './describe-value.js';

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  record: 'an object',
  array: 'an array',
  null: 'null',
  nonoptional: 'a value',
};

const FORMATS: Record<string, string> = { uuid: 'a UUID', email: 'an email address', url: 'a URL' };

function plural(count: number | bigint, noun: string): string {
  return `${count} ${noun}${count === 1 || count === 1n ? '' : 's'}`;
}

function bound(
  origin: string,
  limit: number | bigint,
  inclusive: boolean | undefined,
  side: 'min' | 'max',
): string {
  if (origin === 'array' || origin === 'set')
    return `must have ${side === 'min' ? 'at least' : 'at most'} ${plural(limit, 'item')}`;
  if (origin === 'string')
    return `must be ${side === 'min' ? 'at least' : 'at most'} ${plural(limit, 'character')} long`;
  if (inclusive === false) return `must be ${side === 'min' ? 'greater' : 'less'} than ${limit}`;
  return `must be ${side === 'min' ? 'at least' : 'at most'} ${limit}`;
}

// z.int() reports a non-number as `expected number`; the spec says integer, and so do we.
function isIntegerSchema(inst: unknown): boolean {
  const format = (inst as { _zod?: { def?: { format?: unknown } } } | undefined)?._zod?.def?.format;
  return format === 'safeint' || format === 'int32' || format === 'uint32';
}

/**
 * Sentences a person understands for zod's issues: `required`, `expected an integer, got 1.5`,
 * `must be at most 100`. Passed as the per-parse error map, so a message a schema sets itself
 * (a pattern, a discriminated union) still wins.
 */
export const humanIssueMessage: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return 'required';
      const expected = issue.expected === 'number' && isIntegerSchema(issue.inst) ? 'int' : issue.expected;
      return `expected ${EXPECTED[expected] ?? expected}, got ${describeValue(issue.input)}`;
    }
    case 'too_small':
      return bound(issue.origin, issue.minimum, issue.inclusive, 'min');
    case 'too_big':
      return bound(issue.origin, issue.maximum, issue.inclusive, 'max');
    case 'invalid_value': {
      if (issue.input === undefined) return 'required';
      const values = issue.values.map((v) => (typeof v === 'string' ? v : String(v)));
      if (values.length === 1)
        return `expected ${describeValue(issue.values[0])}, got ${describeValue(issue.input)}`;
      return `invalid value ${describeValue(issue.input)}; expected one of ${values.join(', ')}`;
    }
    case 'invalid_format':
      if (issue.format === 'regex') return `does not match the pattern ${issue.pattern ?? ''}`.trim();
      return `expected ${FORMATS[issue.format] ?? `a ${issue.format}`}, got ${describeValue(issue.input)}`;
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `unknown ${issue.keys.length === 1 ? 'field' : 'fields'} ${issue.keys.join(', ')}`;
    case 'invalid_union':
      return 'does not match any of the allowed shapes';
    case 'invalid_key':
      return 'invalid key';
    case 'invalid_element':
      return 'invalid element';
    default:
      return undefined;
  }
};
