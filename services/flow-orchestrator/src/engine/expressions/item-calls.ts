/**
 * Windmill's expressions may read a variable or a resource: `await variable('f/x/key')`,
 * `await resource('f/x/db')`. The sandbox has no way out, so the engine reads every path an
 * expression names as a string literal first, as the run (its permissions), and the guest's
 * `variable` and `resource` answer from those values; any other path is refused.
 */
export type ItemKind = 'var' | 'res';

/** Reads `$var:`/`$res:` `path` as the run would; throws when it may not. */
export type ItemReader = (kind: ItemKind, path: string) => Promise<unknown>;

const ITEM_CALL = /\b(variable|resource)\s*\(\s*(['"`])([^'"`\\\n]{1,300})\2\s*\)/g;
const MENTIONS_ITEMS = /\b(?:variable|resource)\s*\(/;

/**
 * The `variable('...')` / `resource('...')` calls with a literal path in `expr`, each once;
 * undefined when it calls neither.
 */
export function itemCalls(expr: string): Array<{ kind: ItemKind; path: string }> | undefined {
  if (!MENTIONS_ITEMS.test(expr)) return undefined;
  const seen = new Map<string, { kind: ItemKind; path: string }>();
  for (const match of expr.matchAll(ITEM_CALL)) {
    const kind: ItemKind = match[1] === 'variable' ? 'var' : 'res';
    const path = match[3];
    seen.set(`${kind}:${path}`, { kind, path });
  }
  return [...seen.values()];
}
