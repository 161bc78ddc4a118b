/**
 * The parameters of a postgresql script, Windmill's way: a comment line `-- $1 name` or
 * `-- $2 name = default` names positional parameter N of the query (`$1::text`, ...).
 */
export interface SqlParam {
  readonly position: number;
  readonly name: string;
  readonly hasDefault: boolean;
  readonly defaultValue?: unknown;
}

const DECLARATION = /^\s*--\s*\$(\d+)\s+([A-Za-z_]\w*)(?:\s*\([^)]*\))?\s*(?:=\s*(.*?))?\s*$/;

export function sqlParams(content: string): SqlParam[] {
  const params = new Map<number, SqlParam>();
  for (const line of content.split('\n')) {
    const match = DECLARATION.exec(line);
    if (!match) continue;
    const position = Number(match[1]);
    if (position < 1 || params.has(position)) continue;
    const raw = match[3];
    params.set(position, {
      position,
      name: match[2],
      hasDefault: raw !== undefined && raw !== '',
      ...(raw !== undefined && raw !== '' ? { defaultValue: parseDefault(raw) } : {}),
    });
  }
  return [...params.values()].sort((a, b) => a.position - b.position);
}

/** `= 42`, `= true`, `= "x"` are JSON; `= 'x'` is SQL's string; anything else is text. */
function parseDefault(raw: string): unknown {
  if (raw.length >= 2 && raw.startsWith("'") && raw.endsWith("'"))
    return raw.slice(1, -1).replaceAll("''", "'");
  if (/^null$/i.test(raw)) return null;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/**
 * The values bound to $1..$N, from the arguments by name (else the declared default, else
 * null). They travel as bind parameters, never spliced into the SQL text.
 */
export function sqlValues(params: readonly SqlParam[], args: Readonly<Record<string, unknown>>): unknown[] {
  const count = params.reduce((max, param) => Math.max(max, param.position), 0);
  const values: unknown[] = Array.from({ length: count }, () => null);
  for (const param of params) {
    if (Object.hasOwn(args, param.name) && args[param.name] !== undefined)
      values[param.position - 1] = args[param.name];
    else if (param.hasDefault) values[param.position - 1] = param.defaultValue;
  }
  return values;
}
