/**
 * Most transforms are a path (`flow_input.x`, `results.a.items[0]`, `flow_input.iter.value`) or
 * a literal. Those are read here, in the host, without a sandbox round trip: only own
 * properties of plain JSON values are followed, so nothing reachable here is not also
 * reachable inside the sandbox. Anything else (or a path through a missing value, whose
 * TypeError the sandbox phrases) goes to the sandbox.
 */
const IDENT = '[A-Za-z_$][\\w$]*';
const SEGMENT = `(?:\\??\\.${IDENT}|\\[\\d+\\]|\\[(?:'[^'\\\\]*'|"[^"\\\\]*")\\])`;
const PATH = new RegExp(`^(${IDENT})((?:${SEGMENT})*)$`);
const SEGMENTS = new RegExp(SEGMENT, 'g');
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const STRING = /^(?:'[^'\\\n]*'|"[^"\\\n]*")$/;

export type SimpleOperand =
  | { kind: 'literal'; value: unknown }
  | { kind: 'path'; root: string; segments: Array<{ key: string | number; optional: boolean }> };

/** An operand, or `a + b + ...` of operands (strings and numbers only, as JavaScript adds them). */
export type SimpleTerm = SimpleOperand | { kind: 'sum'; operands: SimpleOperand[] };

/** A term, or an array literal of terms (`[results.a, results.a + 1]`). */
export type SimpleExpression = SimpleTerm | { kind: 'array'; items: SimpleTerm[] };

const cache = new Map<string, SimpleExpression | null>();

export function parseSimpleExpression(source: string): SimpleExpression | undefined {
  const cached = cache.get(source);
  if (cached !== undefined) return cached ?? undefined;
  const parsed = parse(source.trim());
  if (cache.size > 10_000) cache.clear();
  cache.set(source, parsed ?? null);
  return parsed;
}

function parse(expr: string): SimpleExpression | undefined {
  if (expr.startsWith('[') && expr.endsWith(']')) {
    const inner = expr.slice(1, -1).trim();
    if (inner === '') return { kind: 'array', items: [] };
    const parts = splitTopLevel(inner, ',');
    if (!parts) return undefined;
    const items = parts.map((part) => parseTerm(part.trim()));
    return items.every((item) => item !== undefined) ? { kind: 'array', items: items } : undefined;
  }
  return parseTerm(expr);
}

/** `text` split at a top-level separator (none inside quotes or brackets); undefined for text it cannot split safely. */
function splitTopLevel(text: string, separator: string): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') return undefined;
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '[' || c === '(' || c === '{') depth += 1;
    else if (c === ']' || c === ')' || c === '}') depth -= 1;
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function parseTerm(expr: string): SimpleTerm | undefined {
  const terms = splitSum(expr);
  if (terms.length > 1) {
    const operands = terms.map((term) => parseOperand(term.trim()));
    return operands.every((operand) => operand !== undefined)
      ? { kind: 'sum', operands: operands }
      : undefined;
  }
  return parseOperand(expr);
}

/** `a + 'b' + c` split at its top-level `+` (none inside quotes or brackets); one term when there is none. */
function splitSum(expr: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i];
    if (quote) {
      if (c === '\\') return [expr];
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '[' || c === '(') depth += 1;
    else if (c === ']' || c === ')') depth -= 1;
    else if (c === '+' && depth === 0) {
      if (expr[i + 1] === '+' || expr[i - 1] === '+') return [expr];
      terms.push(expr.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(expr.slice(start));
  return terms;
}

function parseOperand(expr: string): SimpleOperand | undefined {
  if (expr === 'true') return { kind: 'literal', value: true };
  if (expr === 'false') return { kind: 'literal', value: false };
  if (expr === 'null') return { kind: 'literal', value: null };
  if (NUMBER.test(expr)) return { kind: 'literal', value: Number(expr) };
  if (STRING.test(expr)) return { kind: 'literal', value: expr.slice(1, -1) };
  const match = PATH.exec(expr);
  if (!match) return undefined;
  const root = match[1];
  if (root === 'undefined' || root === 'true' || root === 'false' || root === 'null') return undefined;
  const segments: Array<{ key: string | number; optional: boolean }> = [];
  for (const segment of match[2].match(SEGMENTS) ?? []) {
    if (segment.startsWith('[')) {
      const inner = segment.slice(1, -1);
      segments.push({ key: /^\d+$/.test(inner) ? Number(inner) : inner.slice(1, -1), optional: false });
    } else {
      const optional = segment.startsWith('?.');
      segments.push({ key: segment.slice(optional ? 2 : 1), optional });
    }
  }
  return { kind: 'path', root, segments };
}

/** `{ value }` when the host can answer exactly as the sandbox would; undefined to ask the sandbox. */
export function evaluateSimpleExpression(
  expression: SimpleExpression,
  context: Readonly<Record<string, unknown>>,
): { value: unknown } | undefined {
  if (expression.kind !== 'array') return evaluateTerm(expression, context);
  const items: unknown[] = [];
  for (const item of expression.items) {
    const answer = evaluateTerm(item, context);
    // An undefined item is null in JSON: the sandbox says so the same way, but let it.
    if (!answer || answer.value === undefined) return undefined;
    items.push(answer.value);
  }
  return { value: items };
}

function evaluateTerm(
  expression: SimpleTerm,
  context: Readonly<Record<string, unknown>>,
): { value: unknown } | undefined {
  if (expression.kind !== 'sum') return evaluateOperand(expression, context);
  let total: string | number | undefined;
  for (const operand of expression.operands) {
    const answer = evaluateOperand(operand, context);
    const value = answer?.value;
    // Only strings and numbers: other values follow coercion rules left to the sandbox.
    if (typeof value !== 'string' && (typeof value !== 'number' || !Number.isFinite(value))) return undefined;
    if (total === undefined) total = value;
    else if (typeof total === 'string' || typeof value === 'string') total = String(total) + String(value);
    else total = total + value;
  }
  return { value: total };
}

/** The operands a simple expression reads. */
export function simpleRoots(expression: SimpleExpression): SimpleOperand[] {
  if (expression.kind === 'array') return expression.items.flatMap((item) => termOperands(item));
  return termOperands(expression);
}

function termOperands(term: SimpleTerm): SimpleOperand[] {
  return term.kind === 'sum' ? term.operands : [term];
}

function evaluateOperand(
  expression: SimpleOperand,
  context: Readonly<Record<string, unknown>>,
): { value: unknown } | undefined {
  if (expression.kind === 'literal') return { value: expression.value };
  if (!Object.hasOwn(context, expression.root)) return undefined;
  let current: unknown = context[expression.root];
  for (const { key, optional } of expression.segments) {
    if (current === null || current === undefined) {
      if (optional) return { value: undefined };
      return undefined;
    }
    if (Array.isArray(current)) {
      if (key === 'length') current = current.length;
      else if (typeof key === 'number' || /^\d+$/.test(key)) current = current[Number(key)];
      else return undefined;
    } else if (typeof current === 'string') {
      if (key !== 'length') return undefined;
      current = current.length;
    } else if (typeof current === 'object') {
      const name = String(key);
      if (!Object.hasOwn(current, name)) {
        // A missing own key reads undefined in JS too, unless the prototype has it.
        if (name in Object.prototype) return undefined;
        current = undefined;
        continue;
      }
      current = (current as Record<string, unknown>)[name];
    } else {
      return undefined;
    }
  }
  return { value: current };
}
