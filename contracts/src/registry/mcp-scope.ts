/**
 * MCP scopes, as Windmill writes them on a token: which scripts and flows the workspace's MCP
 * endpoint (`/api/mcp/w/<workspace>/mcp`) offers the token as tools.
 *
 * - `mcp:all`: every script and flow its user may run;
 * - `mcp:all:f/<folder>/*` (any pattern): the scripts and flows under it;
 * - `mcp:scripts:<pattern>,<pattern>...`, `mcp:flows:<pattern>,...`: those scripts, those flows.
 *
 * A pattern is a path (`u/alice/report`), everything under a prefix (`f/team/*`, matched at a
 * `/`, so `u/al/*` is not `u/alice/x`), or `*`. A token holding an MCP scope may list and read
 * the items it names and start their runs (a run acting with its user's own permissions, as a
 * `jobs:run` token's does), and nothing else. Windmill's `mcp:favorites`, `mcp:hub:` and
 * `mcp:endpoints:` are refused by name: flowmesh has no favorites, no hub, and offers no API
 * endpoints as tools.
 */
export const MCP_SCOPE_PREFIX = 'mcp:';

export type McpItemKind = 'scripts' | 'flows';

/** The patterns an MCP scope (or all of a token's together) names, per kind. */
export interface McpScope {
  readonly scripts: readonly string[];
  readonly flows: readonly string[];
}

const PATTERN = /^[uf]\/[A-Za-z0-9_.\-/]*[A-Za-z0-9_.-]$/;

export function isMcpScope(text: string): boolean {
  return text.startsWith(MCP_SCOPE_PREFIX);
}

function patternProblem(text: string, pattern: string): string | undefined {
  if (pattern === '*') return undefined;
  const path = pattern.endsWith('/*') ? pattern.slice(0, -2) : pattern;
  if (PATTERN.test(path) && !path.includes('//') && path.split('/').length >= 2) return undefined;
  return `scope "${text}": "${pattern}" must be a path under u/ or f/, a prefix ending in "/*" (f/team/*), or "*"`;
}

function patternsOf(text: string, list: string): { patterns: string[]; problem?: string } {
  const patterns = list
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (patterns.length === 0) return { patterns, problem: `scope "${text}": names no path` };
  const problem = patterns.map((pattern) => patternProblem(text, pattern)).find((p) => p !== undefined);
  return problem === undefined ? { patterns } : { patterns, problem };
}

type Parsed = { scope: McpScope } | { problem: string };

function parse(text: string): Parsed {
  const rest = text.slice(MCP_SCOPE_PREFIX.length);
  if (rest === 'all') return { scope: { scripts: ['*'], flows: ['*'] } };
  for (const [head, kinds] of [
    ['all:', ['scripts', 'flows']],
    ['scripts:', ['scripts']],
    ['flows:', ['flows']],
  ] as const) {
    if (!rest.startsWith(head)) continue;
    const { patterns, problem } = patternsOf(text, rest.slice(head.length));
    if (problem !== undefined) return { problem };
    return {
      scope: {
        scripts: (kinds as readonly string[]).includes('scripts') ? patterns : [],
        flows: (kinds as readonly string[]).includes('flows') ? patterns : [],
      },
    };
  }
  if (rest === 'favorites')
    return {
      problem: `scope "${text}": flowmesh has no favorites; name the items (mcp:scripts:<paths>, mcp:flows:<paths>) or a folder (mcp:all:f/<folder>/*)`,
    };
  if (rest.startsWith('hub:')) return { problem: `scope "${text}": flowmesh has no hub of scripts to offer` };
  if (rest.startsWith('endpoints:'))
    return { problem: `scope "${text}": flowmesh offers scripts and flows as tools, not API endpoints` };
  return {
    problem: `scope "${text}": an MCP scope is mcp:all, mcp:all:<pattern>, mcp:scripts:<patterns> or mcp:flows:<patterns>`,
  };
}

/** `undefined` when `text` is a valid MCP scope, else the sentence saying why not. */
export function mcpScopeProblem(text: string): string | undefined {
  const parsed = parse(text);
  return 'problem' in parsed ? parsed.problem : undefined;
}

/** The items the MCP scopes among `scopes` name together; undefined when there is none. */
export function mcpScopeOf(scopes: readonly string[] | undefined): McpScope | undefined {
  const mcp = (scopes ?? []).filter(isMcpScope);
  if (mcp.length === 0) return undefined;
  const scripts: string[] = [];
  const flows: string[] = [];
  for (const text of mcp) {
    const parsed = parse(text);
    // A token's scopes were checked when it was made; one that no longer parses names nothing.
    if ('problem' in parsed) continue;
    scripts.push(...parsed.scope.scripts);
    flows.push(...parsed.scope.flows);
  }
  return { scripts, flows };
}

/** Whether `pattern` reaches `path` (a path, or a pattern: every path it reaches). */
export function mcpPatternCovers(pattern: string, path: string): boolean {
  if (pattern === '*' || pattern === path) return true;
  return pattern.endsWith('/*') && path.startsWith(pattern.slice(0, -1));
}

/** Whether the MCP scopes among `scopes` name item `path` of `kind` (any kind when absent). */
export function mcpScopeCovers(
  scopes: readonly string[] | undefined,
  path: string,
  kind?: McpItemKind,
): boolean {
  const scope = mcpScopeOf(scopes);
  if (!scope) return false;
  const patterns = kind === undefined ? [...scope.scripts, ...scope.flows] : scope[kind];
  return patterns.some((pattern) => mcpPatternCovers(pattern, path));
}

/** Whether MCP scope `requested` names only what the MCP scopes among `granted` name. */
export function mcpScopeWithin(granted: readonly string[], requested: string): boolean {
  const held = mcpScopeOf(granted);
  const wanted = mcpScopeOf([requested]);
  if (!held || !wanted) return false;
  return (['scripts', 'flows'] as const).every((kind) =>
    wanted[kind].every((pattern) => held[kind].some((have) => mcpPatternCovers(have, pattern))),
  );
}
