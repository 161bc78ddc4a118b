/**
 * The parameters of a script's `main`, read from its source text (`Function.prototype.toString`
 * of the function, after type stripping), so arguments can be passed by name as Windmill does.
 * A light scan, not a parser: it follows brackets, strings, template literals and comments far
 * enough to split the parameter list at its top-level commas.
 */
export type MainParam =
  | { readonly kind: 'named'; readonly name: string }
  /** `{ a, b }` or `[a, b]`: receives the whole arguments object. */
  | { readonly kind: 'pattern' }
  /** `...rest`: receives nothing (Windmill passes no positional extras). */
  | { readonly kind: 'rest'; readonly name: string };

const IDENTIFIER = /^[A-Za-z_$][\w$]*/;

export function mainParams(source: string): MainParam[] {
  const list = parameterList(source);
  return list === undefined
    ? []
    : splitTopLevel(list)
        .map(describeParam)
        .filter((p) => p !== undefined);
}

/** The text between the parentheses of the parameter list, or a lone arrow parameter. */
function parameterList(source: string): string | undefined {
  const open = indexOutsideCode(source, '(');
  const arrow = indexOutsideCode(source, '=>');
  if (arrow !== -1 && (open === -1 || arrow < open)) {
    // `x => ...` or `async x => ...`
    const head = source.slice(0, arrow).trim();
    const name = /([A-Za-z_$][\w$]*)$/.exec(head)?.[1];
    return name === undefined || name === 'async' ? '' : name;
  }
  if (open === -1) return undefined;
  let depth = 0;
  for (let i = open; i < source.length; i = skip(source, i)) {
    const char = source[i];
    if (char === '(' || char === '[' || char === '{') depth += 1;
    else if (char === ')' || char === ']' || char === '}') {
      depth -= 1;
      if (depth === 0) return source.slice(open + 1, i);
    }
  }
  return undefined;
}

function splitTopLevel(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i = skip(list, i)) {
    const char = list[i];
    if (char === '(' || char === '[' || char === '{') depth += 1;
    else if (char === ')' || char === ']' || char === '}') depth -= 1;
    else if (char === ',' && depth === 0) {
      parts.push(list.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(list.slice(start));
  return parts
    .map(stripComments)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

function describeParam(text: string): MainParam | undefined {
  if (text.startsWith('{') || text.startsWith('[')) return { kind: 'pattern' };
  if (text.startsWith('...')) {
    const name = IDENTIFIER.exec(text.slice(3).trim())?.[0];
    return name === undefined ? undefined : { kind: 'rest', name };
  }
  const name = IDENTIFIER.exec(text)?.[0];
  return name === undefined ? undefined : { kind: 'named', name };
}

/** Index of `token` at the top of the text, outside strings and comments. */
function indexOutsideCode(source: string, token: string): number {
  for (let i = 0; i < source.length; i = skip(source, i)) {
    if (source.startsWith(token, i)) return i;
  }
  return -1;
}

/** The index after the construct at `i`: a whole string, template literal or comment, else one char. */
function skip(source: string, i: number): number {
  const char = source[i];
  if (char === '"' || char === "'" || char === '`') {
    let j = i + 1;
    while (j < source.length && source[j] !== char) j += source[j] === '\\' ? 2 : 1;
    return j + 1;
  }
  if (char === '/' && source[i + 1] === '/') {
    const end = source.indexOf('\n', i);
    return end === -1 ? source.length : end + 1;
  }
  if (char === '/' && source[i + 1] === '*') {
    const end = source.indexOf('*/', i + 2);
    return end === -1 ? source.length : end + 2;
  }
  return i + 1;
}

function stripComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length;) {
    const next = skip(text, i);
    const piece = text.slice(i, next);
    if (!piece.startsWith('//') && !piece.startsWith('/*')) out += piece;
    else out += ' ';
    i = next;
  }
  return out;
}

/** `main`'s arguments in order: named ones by name, a destructuring pattern gets them all. */
export function argumentsFor(
  params: readonly MainParam[],
  args: Readonly<Record<string, unknown>>,
): unknown[] {
  const values: unknown[] = [];
  for (const param of params) {
    if (param.kind === 'rest') break;
    if (param.kind === 'pattern') values.push(args);
    else values.push(Object.hasOwn(args, param.name) ? args[param.name] : undefined);
  }
  return values;
}

const DATE_PARAM = /^\s*([A-Za-z_$][\w$]*)\s*\??\s*:\s*Date\s*(?:\|\s*(?:undefined|null)\s*)?(?:=|$)/;

/**
 * The parameters of `entrypoint` typed `Date` in the script's TypeScript (before stripping):
 * Windmill's wrapper gives them a `Date` made from the string argument.
 */
export function dateParams(typescript: string, entrypoint: string): string[] {
  if (!/:\s*Date\b/.test(typescript)) return [];
  const at = new RegExp(`\\bfunction\\s*\\*?\\s*${entrypoint}\\s*(?:<[^(]*>)?\\s*\\(`).exec(typescript);
  if (!at) return [];
  const list = parameterList(typescript.slice(at.index + at[0].length - 1));
  if (list === undefined) return [];
  return splitTopLevel(list).flatMap((param) => {
    const name = DATE_PARAM.exec(param)?.[1];
    return name === undefined ? [] : [name];
  });
}
