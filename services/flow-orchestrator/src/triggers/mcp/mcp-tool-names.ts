import { createHash } from 'node:crypto';

/** A script or flow offered as a tool: what its name maps back to. */
export interface ToolItem {
  readonly kind: 'script' | 'flow';
  readonly path: string;
}

/** MCP's rule for tool names (and the AI providers' behind the clients). */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX = 64;
const HASH = 7;

/**
 * A tool's name as Windmill derives it: `s-` for a script, `f-` for a flow, then the path with
 * `/` (and any other character a name may not hold) as `_`: `u/admin/echo` -> `s-u_admin_echo`.
 */
export function baseToolName(item: ToolItem): string {
  return `${item.kind === 'script' ? 's' : 'f'}-${item.path.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
}

/** The base name cut to fit, with a digest of the item: what a long or shared name becomes. */
function hashedName(item: ToolItem, base: string): string {
  const digest = createHash('sha256').update(`${item.kind}:${item.path}`).digest('hex').slice(0, HASH);
  return `${base.slice(0, MAX - HASH - 1)}-${digest}`;
}

/**
 * The tool names of a set of items, each unique and within MCP's rule, mapped back to its item.
 * Windmill's names are kept where they fit; a name over 64 characters, or one two items share
 * (`f/a_b/c` and `f/a/b_c`), ends in a digest of the item's kind and path instead, so it stays the
 * same whatever else the set holds.
 */
export function toolNames(items: readonly ToolItem[]): Map<string, ToolItem> {
  const count = new Map<string, number>();
  for (const item of items) count.set(baseToolName(item), (count.get(baseToolName(item)) ?? 0) + 1);
  const names = new Map<string, ToolItem>();
  for (const item of items) {
    const base = baseToolName(item);
    const name = base.length <= MAX && count.get(base) === 1 ? base : hashedName(item, base);
    if (!names.has(name)) names.set(name, item);
  }
  return names;
}
