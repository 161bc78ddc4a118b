import type { z } from 'zod';
import { formatJsonPath, type ValidationIssue } from '../errors.js';
import { describeValue } from './describe-value.js';
import { inReadingOrder } from './document-order.js';
import { isRecord } from './flow-walk.js';
import { FlowValueSchema, OpenFlowSchema, type FlowValue, type OpenFlow } from './flow-value.schema.js';
import { humanIssueMessage } from './issue-message.js';
import { checkFlowRules } from './semantic-checks.js';
import type { FlowIssue } from './rules/flow-rule.js';
import { readSourceText, type SourceFormat } from './source-text.js';

/** An OpenFlow document `{summary, value, ...}`, or a bare FlowValue `{modules, ...}`. */
export type OpenFlowInputKind = 'openflow' | 'flow_value';

export type ParseOpenFlowResult =
  | { ok: true; kind: 'openflow'; flow: OpenFlow; value: FlowValue }
  | { ok: true; kind: 'flow_value'; flow: FlowValue; value: FlowValue }
  | { ok: false; kind?: OpenFlowInputKind; errors: ValidationIssue[] };

export interface ParseOpenFlowOptions {
  /** How to read text input; by default, text opening with `{` or `[` is JSON, other text YAML. */
  format?: SourceFormat;
}

function kindOf(data: Record<string, unknown>): OpenFlowInputKind | undefined {
  if ('value' in data || 'summary' in data) return 'openflow';
  if ('modules' in data) return 'flow_value';
  return undefined;
}

function schemaIssues(error: z.ZodError | undefined): FlowIssue[] {
  return (error?.issues ?? []).map((issue) => ({ path: issue.path, message: issue.message }));
}

/** Every issue once per path (a rule does not repeat a path the schema reported), in reading order. */
function report(schema: FlowIssue[], rules: FlowIssue[], data: unknown): ValidationIssue[] {
  const reported = new Set(schema.map((issue) => formatJsonPath(issue.path)));
  const fresh = rules.filter((issue) => !reported.has(formatJsonPath(issue.path)));
  return inReadingOrder([...schema, ...fresh], data).map((issue) => ({
    path: formatJsonPath(issue.path),
    message: issue.message,
  }));
}

function validate(data: Record<string, unknown>, kind: OpenFlowInputKind): ParseOpenFlowResult {
  const basePath = kind === 'openflow' ? ['value'] : [];
  const parsed =
    kind === 'openflow'
      ? OpenFlowSchema.safeParse(data, { error: humanIssueMessage })
      : FlowValueSchema.safeParse(data, { error: humanIssueMessage });
  const flowValue = kind === 'openflow' ? data.value : data;
  const errors = report(schemaIssues(parsed.error), checkFlowRules(flowValue, basePath), data);
  if (errors.length > 0 || !parsed.success) return { ok: false, kind, errors };
  return kind === 'openflow'
    ? { ok: true, kind, flow: parsed.data as OpenFlow, value: (parsed.data as OpenFlow).value }
    : { ok: true, kind, flow: parsed.data as FlowValue, value: parsed.data as FlowValue };
}

/**
 * Parses a flow from an object, JSON text or YAML text. Returns the typed flow, or every
 * problem found (schema and spec rules), each with its JSON path and a sentence; never throws.
 */
export function parseOpenFlow(input: unknown, options: ParseOpenFlowOptions = {}): ParseOpenFlowResult {
  let data = input;
  if (typeof input === 'string') {
    const source = readSourceText(input, options.format);
    if (!source.ok) return { ok: false, errors: [source.error] };
    data = source.data;
  }
  if (!isRecord(data))
    return {
      ok: false,
      errors: [
        {
          path: '(root)',
          message: `expected an OpenFlow document or a FlowValue object, got ${describeValue(data)}`,
        },
      ],
    };
  const kind = kindOf(data);
  if (!kind)
    return {
      ok: false,
      errors: [
        {
          path: '(root)',
          message:
            'expected an OpenFlow document {summary, value} or a FlowValue {modules}; found neither value nor modules',
        },
      ],
    };
  try {
    return validate(data, kind);
  } catch (error) {
    // Only a pathological input (nesting deep enough to exhaust the stack) gets here.
    const reason =
      error instanceof RangeError
        ? 'the flow is nested too deeply to validate'
        : 'the flow could not be validated';
    return { ok: false, kind, errors: [{ path: '(root)', message: reason }] };
  }
}
