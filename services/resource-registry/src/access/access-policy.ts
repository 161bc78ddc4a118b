import {
  SCOPE_DOMAINS,
  scopesAllow,
  type CallerIdentity,
  type ItemPath,
  type ScopeAction,
  type ScopeDomain,
} from '@flowmesh/contracts';

/** Who may do what in a folder: principals (`u/<user>`, `g/<group>`) per role. */
export interface FolderRoles {
  readonly owners: readonly string[];
  readonly writers: readonly string[];
  readonly readers: readonly string[];
}

export type Access = 'none' | 'read' | 'write';
export type FolderRole = 'owner' | 'writer' | 'reader';

/** What an operation needs from a token's scopes: a domain (any, when absent) and an action. */
export interface AccessScope {
  readonly domain?: ScopeDomain;
  readonly action: ScopeAction;
}

/** The principals an identity acts as: itself and each of its groups. */
export function principalsOf(identity: CallerIdentity): string[] {
  const self = identity.username.startsWith('g/') ? [] : [`u/${identity.username}`];
  return [...self, ...identity.groups.map((group) => `g/${group}`)];
}

/** The strongest role the identity holds in a folder, through itself or a group. */
export function folderRole(identity: CallerIdentity, roles: FolderRoles): FolderRole | undefined {
  const mine = new Set(principalsOf(identity));
  if (roles.owners.some((p) => mine.has(p))) return 'owner';
  if (roles.writers.some((p) => mine.has(p))) return 'writer';
  if (roles.readers.some((p) => mine.has(p))) return 'reader';
  return undefined;
}

/**
 * What ownership grants on a path, before scopes: admins everything; `u/x/...` its user;
 * `f/<folder>/...` owners and writers write, readers read. `folder` is the folder of an `f/` path,
 * undefined when it does not exist.
 */
export function ownershipAccess(
  identity: CallerIdentity,
  path: ItemPath,
  folder: FolderRoles | undefined,
): Access {
  if (identity.isAdmin) return 'write';
  if (path.kind === 'user') return path.owner === identity.username ? 'write' : 'none';
  if (!folder) return 'none';
  const role = folderRole(identity, folder);
  return role === 'owner' || role === 'writer' ? 'write' : role === 'reader' ? 'read' : 'none';
}

/** Whether the identity's scopes allow `action` on `path` in the domain (in any domain when absent). */
export function scopeAllows(identity: CallerIdentity, scope: AccessScope, path: string | undefined): boolean {
  if (identity.scopes === undefined) return true;
  const domains = scope.domain ? [scope.domain] : SCOPE_DOMAINS;
  return domains.some((domain) => scopesAllow(identity.scopes, { domain, action: scope.action, path }));
}

/** Ownership narrowed by scopes: read needs a read scope, write a write scope. */
export function effectiveAccess(
  identity: CallerIdentity,
  path: ItemPath,
  rawPath: string,
  folder: FolderRoles | undefined,
  domain: ScopeDomain | undefined,
): Access {
  const owned = ownershipAccess(identity, path, folder);
  if (owned === 'none' || !scopeAllows(identity, { domain, action: 'read' }, rawPath)) return 'none';
  if (owned === 'write' && scopeAllows(identity, { domain, action: 'write' }, rawPath)) return 'write';
  return 'read';
}
