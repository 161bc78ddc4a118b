import { z } from 'zod';
import { MeshError } from '../errors.js';

/**
 * Token scopes: `domain:action[:resource]`. A token without scopes is unrestricted; a token with
 * scopes may do only what one of them allows. `write` includes `read`. The resource, when given,
 * limits the scope to one path (`f/team/x`) or to paths under a prefix (`f/team/*`: `*` only at
 * the end); a folder is named `f/<folder>`, a group `g/<group>`, a user `u/<user>`.
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

export interface Scope {
  readonly domain: ScopeDomain;
  readonly action: ScopeAction;
  /** A path, or a prefix ending in `*`; absent: every path. */
  readonly resource?: string;
}

/** What an operation needs: its domain and action, and the path it touches when it has one. */
export interface ScopeNeed {
  readonly domain: ScopeDomain;
  readonly action: ScopeAction;
  readonly path?: string;
}

const RESOURCE = /^[ugf]\/[A-Za-z0-9_.\-/]*\*?$/;

/** `undefined` when `text` is a valid scope, else the sentence saying why not. */
export function scopeProblem(text: string): string | undefined {
  const parts = text.split(':');
  if (parts.length < 2 || parts.length > 3)
    return `scope "${text}" must be domain:action or domain:action:resource`;
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

export function parseScope(text: string): Scope {
  const problem = scopeProblem(text);
  if (problem) throw new MeshError('VALIDATION_FAILED', problem, { scope: text });
  const [domain, action, resource] = text.split(':') as [ScopeDomain, ScopeAction, string | undefined];
  return resource === undefined ? { domain, action } : { domain, action, resource };
}

export function formatScope(scope: Scope): string {
  return scope.resource === undefined
    ? `${scope.domain}:${scope.action}`
    : `${scope.domain}:${scope.action}:${scope.resource}`;
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
    const scope = parseScope(text);
    return (
      scope.domain === need.domain &&
      actionCovers(scope.action, need.action) &&
      (scope.resource === undefined || need.path === undefined || resourceMatches(scope.resource, need.path))
    );
  });
}

/** Whether every path `requested` can reach, `granted` reaches too. */
function scopeCovers(granted: Scope, requested: Scope): boolean {
  if (granted.domain !== requested.domain || !actionCovers(granted.action, requested.action)) return false;
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
  const wanted = requested?.map(parseScope);
  if (granted === undefined) return wanted?.map(formatScope);
  if (wanted === undefined) return [...granted];
  const held = granted.map(parseScope);
  const wider = wanted.find((scope) => !held.some((have) => scopeCovers(have, scope)));
  if (wider) {
    throw new MeshError(
      'PERMISSION_DENIED',
      `scope "${formatScope(wider)}" is not within the caller's scopes (${granted.join(', ') || 'none'}): scopes can only narrow`,
    );
  }
  return wanted.map(formatScope);
}

/**
 * The `jobs:run` scopes among `scopes`. A token holding any is a run token (Windmill's
 * webhook-specific token): it may start runs of the paths they cover and of no other path (nor
 * previews, which have none), and such a run acts with its principal's own permissions, not the
 * token's scopes. `jobs:run` allows nothing else: not reading jobs (`jobs:read`), nor items.
 */
export function runScopesOf(scopes: readonly string[] | undefined): string[] {
  return (scopes ?? []).filter((text) => {
    const scope = parseScope(text);
    return scope.domain === 'jobs' && scope.action === 'run';
  });
}

/** Whether `scopes` hold a `jobs:run` scope covering `path` (an unrestricted token holds none). */
export function runScopeCovers(scopes: readonly string[] | undefined, path: string): boolean {
  const run = runScopesOf(scopes);
  return run.length > 0 && scopesAllow(run, { domain: 'jobs', action: 'run', path });
}
