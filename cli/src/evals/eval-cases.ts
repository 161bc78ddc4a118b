import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';

/** One line of a cases file: the flow's args, what it should return, and how to compare. */
export const EvalCaseSchema = z.strictObject({
  /** Shown in the table; the line number when absent. */
  name: z.string().min(1).optional(),
  args: z.record(z.string(), z.unknown()).default({}),
  expected: z.unknown(),
  /** `exact`: the result equals `expected`; `subset`: `expected` is a JSON subset of it. */
  match: z.enum(['exact', 'subset']).default('exact'),
});
export type EvalCase = z.infer<typeof EvalCaseSchema> & { readonly name: string };

export class EvalCasesError extends Error {}

/** The cases of a JSONL text (blank lines skipped); every bad line named with its number and field. */
export function parseEvalCases(text: string, file: string): EvalCase[] {
  const cases: EvalCase[] = [];
  const problems: string[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `${file}:${index + 1}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      problems.push(`${where}: not a JSON object`);
      return;
    }
    const parsed = EvalCaseSchema.safeParse(json);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        problems.push(`${where}: ${issue.path.join('.') || 'case'}: ${issue.message}`);
      return;
    }
    if (!('expected' in (json as object))) {
      problems.push(`${where}: expected: required`);
      return;
    }
    cases.push({ ...parsed.data, name: parsed.data.name ?? `line ${index + 1}` });
  });
  if (problems.length > 0) throw new EvalCasesError(problems.join('\n'));
  if (cases.length === 0) throw new EvalCasesError(`${file}: no cases`);
  return cases;
}

/** Whether `actual` matches `expected`: equal, or (subset) every field and item of it there. */
export function matches(actual: unknown, expected: unknown, mode: 'exact' | 'subset'): boolean {
  return mode === 'exact' ? isDeepStrictEqual(actual, expected) : isSubset(actual, expected);
}

function isSubset(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected))
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((item, index) => isSubset(actual[index], item))
    );
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
    return Object.entries(expected).every(
      ([key, value]) => key in actual && isSubset((actual as Record<string, unknown>)[key], value),
    );
  }
  return isDeepStrictEqual(actual, expected);
}
