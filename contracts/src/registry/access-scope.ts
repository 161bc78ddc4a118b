import { z } from 'zod';
import { MeshError } from '../errors.js';
import { isMcpScope, mcpScopeCovers, mcpScopeProblem, mcpScopeWithin } from './mcp-scope.js';

/**
 * Token scopes: `domain:action[:resource]` (and Windmill's `jobs:run:flows[:resource]`,
 * `jobs:run:scripts[:resource]`). A token without scopes is unrestricted; a token with
 * scopes may do only what one of them allows. `write` includes `read`. The resource, when given,
 * limits the scope to one path (`f/team/x`) or to paths under a prefix (`f/team/*`: `*` only at
 * the end); a folder is named `f/<folder>`, a group `g/<group>`, a user `u/<user>`. Windmill's
 * MCP scopes (`mcp:all`, `mcp:scripts:<paths>`, ... in `mcp-scope.ts`) name the items a token may
 * list, read and run as MCP tools, and allow nothing else.
 */
export const SCOPE_DOMAINS = [
  'resources',
  'resource_types',
  'variables',
  'scripts',
  'flows',
  'drafts',
  'versions',
  'deploy',
  'folders',
  'groups',
  'users',
  'tokens',
  'workspaces',
  'jobs',
  'agents',
  'ai',
  'memory',
  'locks',
] as const;
export type ScopeDomain = (typeof SCOPE_DOMAINS)[number];

export const SCOPE_ACTIONS = ['read', 'write', 'run'] as const;
export type ScopeAction = (typeof SCOPE_ACTIONS)[number];

/**
 * What a `jobs:run` scope may be limited to, as Windmill writes its webhook-specific tokens:
 * `jobs:run:flows[:path]` runs only flows, `jobs:run:scripts[:path]` only scripts.
 */
export const RUNNABLE_KINDS = ['flows', 'scripts'] as const;
export type RunnableKind = (typeof RUNNABLE_KINDS)[number];

export interface Scope {
  readonly domain: ScopeDomain;
  readonly action: ScopeAction;
  /** `jobs:run` only: flows or scripts; absent: both. */
  readonly runnable?: RunnableKind;
  /** A path, or a prefix ending in `*`; absent: every path. */
  readonly resource?: string;
}

/** What an operation needs: its domain and action, and the path it touches when it has one. */
export interface ScopeNeed {
  readonly domain: ScopeDomain;
  readonly action: ScopeAction;
  readonly path?: string;
  /** `jobs:run`: what is started (a scope limited to the other kind does not allow it). */
  readonly runnable?: RunnableKind;
}

const RESOURCE = /^[ugf]\/[A-Za-z0-9_.\-/]*\*?$/;

/** The parts of a scope's text, with Windmill's `jobs:run:{flows|scripts}` kind taken out. */
function partsOf(text: string): { parts: string[]; runnable?: RunnableKind } {
  const parts = text.split(':');
  const kind = parts[2];
  if (
    parts[0] === 'jobs' &&
    parts[1] === 'run' &&
    (RUNNABLE_KINDS as readonly string[]).includes(kind ?? '')
  ) {
    return { parts: [parts[0], parts[1], ...parts.slice(3)], runnable: kind as RunnableKind };
  }
  return { parts };
}

/** `undefined` when `text` is a valid scope, else the sentence saying why not. */
export function scopeProblem(text: string): string | undefined {
  if (isMcpScope(text)) return mcpScopeProblem(text);
  const { parts } = partsOf(text);
  if (parts.length < 2 || parts.length > 3)
    return `scope "${text}" must be domain:action or domain:action:resource (jobs:run:flows or jobs:run:scripts before the resource)`;
  const [domain, action, resource] = parts as [string, string, string | undefined];
  if (!(SCOPE_DOMAINS as readonly string[]).includes(domain)) {
    return `scope "${text}": unknown domain "${domain}" (one of ${SCOPE_DOMAINS.join(', ')})`;
  }
  if (!(SCOPE_ACTIONS as readonly string[]).includes(action)) {
    return `scope "${text}": unknown action "${action}" (one of ${SCOPE_ACTIONS.join(', ')})`;
  }
  if (resource !== undefined && (!RESOURCE.test(resource) || resource.includes('//'))) {
    return `scope "${text}": resource "${resource}" must be a path under u/, f/ or g/, with '*' only at the end`;
  }
  return undefined;
}

/** A `domain:action[:resource]` scope's parts; an MCP scope is not one (see `mcp-scope.ts`). */
export function parseScope(text: string): Scope {
  if (isMcpScope(text))
    throw new MeshError('VALIDATION_FAILED', `scope "${text}" is an MCP scope, not domain:action`, {
      scope: text,
    });
  const problem = scopeProblem(text);
  if (problem) throw new MeshError('VALIDATION_FAILED', problem, { scope: text });
  const { parts, runnable } = partsOf(text);
  const [domain, action, resource] = parts as [ScopeDomain, ScopeAction, string | undefined];
  return {
    domain,
    action,
    ...(runnable === undefined ? {} : { runnable }),
    ...(resource === undefined ? {} : { resource }),
  };
}

export function formatScope(scope: Scope): string {
  const runnable = scope.runnable === undefined ? '' : `:${scope.runnable}`;
  const resource = scope.resource === undefined ? '' : `:${scope.resource}`;
  return `${scope.domain}:${scope.action}${runnable}${resource}`;
}

export const ScopeSchema = z.string().superRefine((value, ctx) => {
  const problem = scopeProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** Scopes of a token: absent means unrestricted; present (even empty) means only these. */
export const ScopeListSchema = z.array(ScopeSchema).max(64);

function actionCovers(granted: ScopeAction, needed: ScopeAction): boolean {
  return granted === needed || (granted === 'write' && needed === 'read');
}

function resourceMatches(pattern: string, path: string): boolean {
  return pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : pattern === path;
}

/**
 * Whether `scopes` allow `need`. An operation without a path (a list) is allowed by a scope
 * limited to some paths; the caller then keeps only the items those paths allow.
 */
export function scopesAllow(scopes: readonly string[] | undefined, need: ScopeNeed): boolean {
  if (scopes === undefined) return true;
  return scopes.some((text) => {
    if (isMcpScope(text)) return mcpScopeAllows(text, need);
    const scope = parseScope(text);
    return (
      scope.domain === need.domain &&
      actionCovers(scope.action, need.action) &&
      (scope.runnable === undefined || need.runnable === undefined || scope.runnable === need.runnable) &&
      (scope.resource === undefined || need.path === undefined || resourceMatches(scope.resource, need.path))
    );
  });
}

/**
 * What an MCP scope allows: reading the scripts and flows it names (a list: some of them) and
 * starting their runs (`jobs:run`, the run acting with its principal's permissions).
 */
function mcpScopeAllows(text: string, need: ScopeNeed): boolean {
  const kind =
    need.domain === 'jobs' && need.action === 'run'
      ? need.runnable
      : need.action === 'read' && (need.domain === 'scripts' || need.domain === 'flows')
        ? need.domain
        : null;
  if (kind === null) return false;
  if (need.path === undefined) return need.domain !== 'jobs';
  return mcpScopeCovers([text], need.path, kind);
}

/** Whether every path `requested` can reach, `granted` reaches too. */
function scopeCovers(granted: Scope, requested: Scope): boolean {
  if (granted.domain !== requested.domain || !actionCovers(granted.action, requested.action)) return false;
  if (granted.runnable !== undefined && granted.runnable !== requested.runnable) return false;
  if (granted.resource === undefined) return true;
  if (requested.resource === undefined) return false;
  if (!granted.resource.endsWith('*')) return granted.resource === requested.resource;
  return requested.resource.startsWith(granted.resource.slice(0, -1));
}

/**
 * The scopes of a token derived from one with `granted` scopes: `requested` when each of them
 * is covered by a granted one (scopes only narrow), the granted ones when none are requested.
 * A request that would widen is a PERMISSION_DENIED naming the first scope not covered.
 */
export function narrowScopes(
  granted: readonly string[] | undefined,
  requested: readonly string[] | undefined,
): string[] | undefined {
  // Checked first: a scope that does not parse is the caller's mistake, whatever the caller holds.
  const wanted = requested?.map((text) => (isMcpScope(text) ? checkedMcpScope(text) : parseScope(text)));
  const texts = wanted?.map((scope) => (typeof scope === 'string' ? scope : formatScope(scope)));
  if (granted === undefined) return texts;
  if (wanted === undefined || texts === undefined) return [...granted];
  const held = granted.filter((text) => !isMcpScope(text)).map(parseScope);
  const wider = wanted.findIndex((scope) =>
    typeof scope === 'string'
      ? !mcpScopeWithin(granted, scope)
      : !held.some((have) => scopeCovers(have, scope)),
  );
  if (wider >= 0) {
    throw new MeshError(
      'PERMISSION_DENIED',
      `scope "${texts[wider]}" is not within the caller's scopes (${granted.join(', ') || 'none'}): scopes can only narrow`,
    );
  }
  return texts;
}

function checkedMcpScope(text: string): string {
  const problem = mcpScopeProblem(text);
  if (problem) throw new MeshError('VALIDATION_FAILED', problem, { scope: text });
  return text;
}

/**
 * The `jobs:run` scopes among `scopes`. A token holding any is a run token (Windmill's
 * webhook-specific token): it may start runs of the paths they cover and of no other path (nor
 * previews, which have none), and such a run acts with its principal's own permissions, not the
 * token's scopes. `jobs:run` allows nothing else: not reading jobs (`jobs:read`), nor items. MCP
 * scopes start runs of the items they name the same way, so they are among these too.
 */
export function runScopesOf(scopes: readonly string[] | undefined): string[] {
  return (scopes ?? []).filter((text) => {
    if (isMcpScope(text)) return true;
    const scope = parseScope(text);
    return scope.domain === 'jobs' && scope.action === 'run';
  });
}

/**
 * Whether `scopes` hold a `jobs:run` scope covering `path` (an unrestricted token holds none); a
 * scope limited to flows or scripts covers only that `runnable`.
 */
export function runScopeCovers(
  scopes: readonly string[] | undefined,
  path: string,
  runnable?: RunnableKind,
): boolean {
  const run = runScopesOf(scopes);
  return (
    run.length > 0 &&
    scopesAllow(run, { domain: 'jobs', action: 'run', path, ...(runnable === undefined ? {} : { runnable }) })
  );
}
