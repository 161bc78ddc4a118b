import type { z } from 'zod';
import { isRecord, type VisitedModule } from '../flow-walk.js';
import { humanIssueMessage } from '../issue-message.js';

export interface FlowRuleContext {
  /** The flow value as written (not yet validated). */
  readonly value: unknown;
  /** Where the flow value sits: `['value']` in an OpenFlow document, `[]` for a bare FlowValue. */
  readonly basePath: readonly PropertyKey[];
  /** Every module, special module and agent tool, in document order. */
  readonly modules: readonly VisitedModule[];
}

/** A problem at a path, still as segments so the problems can be put in document order. */
export interface FlowIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** A rule the spec states that the schema alone cannot express. */
export type FlowRule = (context: FlowRuleContext) => FlowIssue[];

export function issueAt(path: readonly PropertyKey[], message: string): FlowIssue {
  return { path, message };
}

/** A module's `value` when it is an object, else an empty one. */
export function moduleValue(module: Record<string, unknown>): Record<string, unknown> {
  return isRecord(module.value) ? module.value : {};
}

// An absent or empty static value reads as unset, so it is never checked against the input's type.
function isUnset(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/**
 * Checks the value of a static transform against what the input expects (a transform that
 * is an expression or AI-resolved is only known at run time).
 */
export function checkStaticValue(
  transform: unknown,
  path: readonly PropertyKey[],
  schema: z.ZodType,
): FlowIssue[] {
  if (!isRecord(transform) || transform.type !== 'static' || isUnset(transform.value)) return [];
  const result = schema.safeParse(transform.value, { error: humanIssueMessage });
  if (result.success) return [];
  return result.error.issues.map((issue) => issueAt([...path, 'value', ...issue.path], issue.message));
}
