/**
 * The parameters of a bash script, Windmill's way: a line `name="$1"` (or `name="${2:-default}"`)
 * names positional parameter N. Arguments are passed as positional values in that order.
 */
const DECLARATION =
  /^\s*(?:local\s+|declare\s+|readonly\s+)?([A-Za-z_]\w*)=(["']?)\$(?:(\d+)|\{(\d+)(?::?-[^}]*)?\})\2\s*(?:#.*)?$/;

export function bashParams(content: string): string[] {
  const names: string[] = [];
  for (const line of content.split('\n')) {
    const match = DECLARATION.exec(line);
    if (!match) continue;
    const position = Number(match[3] ?? match[4]);
    if (position >= 1 && names[position - 1] === undefined) names[position - 1] = match[1]!;
  }
  return names;
}

/** Positional values for the script: strings as they are, other JSON as text, missing as ''. */
export function bashArguments(
  params: readonly (string | undefined)[],
  args: Readonly<Record<string, unknown>>,
): string[] {
  return Array.from(params, (name) => {
    if (name === undefined || !Object.hasOwn(args, name)) return '';
    const value = args[name];
    if (value === null || value === undefined) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}
