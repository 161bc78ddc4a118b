import {
  MeshError,
  parseItemPath,
  scopesAllow,
  type CallerIdentity,
  type ItemPath,
  type ScopeAction,
  type ScopeDomain,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { AuthenticateService } from '../auth/authenticate.service.js';
import { FolderRepository } from '../folders/folder.repository.js';
import {
  effectiveAccess,
  scopeAllows,
  type Access,
  type AccessScope,
  type FolderRoles,
} from './access-policy.js';

/**
 * The one gate every read and write of the registry passes. An item the caller may not read is
 * reported exactly as one that does not exist (the caller's own NOT_FOUND message); a write to
 * something readable but not writable is PERMISSION_DENIED.
 */
@Injectable()
export class AccessService {
  constructor(
    private readonly auth: AuthenticateService,
    private readonly folders: FolderRepository,
  ) {}

  /** The identity of `token` in `workspace`; UNAUTHENTICATED for a bad, expired or revoked one. */
  async authenticate(token: string, workspace: string): Promise<CallerIdentity> {
    return (await this.auth.authenticate(token, workspace)).identity;
  }

  /** `registry.auth.authenticate`: the identity and when the token stops being valid. */
  async authenticateWithExpiry(token: string, workspace: string): Promise<CallerIdentity> {
    const { identity, expiresAt } = await this.auth.authenticate(token, workspace);
    return { ...identity, tokenExpiresAt: expiresAt?.toISOString() ?? null };
  }

  /** `registry.access.check`: whether the token's identity may read or write `path`. */
  async check(
    token: string,
    workspace: string,
    path: string,
    action: 'read' | 'write',
    domain?: ScopeDomain,
  ): Promise<{ allowed: boolean }> {
    const access = await this.accessTo(await this.authenticate(token, workspace), path, domain);
    return { allowed: action === 'read' ? access !== 'none' : access === 'write' };
  }

  /** `none`, `read` or `write` on `path` (validated: a malformed path is VALIDATION_FAILED). */
  async accessTo(identity: CallerIdentity, path: string, domain?: ScopeDomain): Promise<Access> {
    const parsed = parseItemPath(path);
    return effectiveAccess(identity, parsed, path, await this.folderOf(identity, parsed), domain);
  }

  async canRead(identity: CallerIdentity, path: string, domain?: ScopeDomain): Promise<boolean> {
    return (await this.accessTo(identity, path, domain)) !== 'none';
  }

  async canWrite(identity: CallerIdentity, path: string, domain?: ScopeDomain): Promise<boolean> {
    return (await this.accessTo(identity, path, domain)) === 'write';
  }

  /** Throws `NOT_FOUND(notFoundMessage)` unless the identity may read `path`. */
  async assertCanRead(
    identity: CallerIdentity,
    path: string,
    scope: AccessScope,
    notFoundMessage: string,
  ): Promise<void> {
    const access = await this.accessTo(identity, path, scope.domain);
    if (access === 'none' || (scope.action !== 'read' && !scopeAllows(identity, scope, path))) {
      throw new MeshError('NOT_FOUND', notFoundMessage, { path });
    }
  }

  /**
   * Throws `NOT_FOUND(notFoundMessage)` when the identity may not even read the existing item at
   * `path`, `PERMISSION_DENIED` when it may read but not write it.
   */
  async assertCanWrite(
    identity: CallerIdentity,
    path: string,
    scope: AccessScope,
    notFoundMessage: string,
  ): Promise<void> {
    const access = await this.accessTo(identity, path, scope.domain);
    if (access === 'none') throw new MeshError('NOT_FOUND', notFoundMessage, { path });
    if (access !== 'write' || (scope.action !== 'write' && !scopeAllows(identity, scope, path))) {
      throw writeDenied(identity, path);
    }
  }

  /**
   * For an update that may move the item: `assertCanWrite` on `path`, then `assertCanCreate` on
   * `newPath` when it names another path. Returns that new path, undefined when the item stays.
   */
  async assertCanUpdate(
    identity: CallerIdentity,
    path: string,
    newPath: string | undefined,
    scope: AccessScope,
    notFoundMessage: string,
  ): Promise<string | undefined> {
    await this.assertCanWrite(identity, path, scope, notFoundMessage);
    const moved = newPath !== undefined && newPath !== path ? newPath : undefined;
    if (moved) await this.assertCanCreate(identity, moved, scope);
    return moved;
  }

  /**
   * For a new item at `path`: PERMISSION_DENIED under another user's `u/`, NOT_FOUND for a folder
   * that does not exist or that the identity may not read, PERMISSION_DENIED when it may only read.
   */
  async assertCanCreate(identity: CallerIdentity, path: string, scope: AccessScope): Promise<void> {
    const parsed = parseItemPath(path);
    const folder = await this.folderOf(identity, parsed);
    if (parsed.kind === 'folder' && !folder) throw folderNotFound(parsed.owner);
    const access = effectiveAccess(identity, parsed, path, folder, scope.domain);
    if (access === 'none' && parsed.kind === 'folder') throw folderNotFound(parsed.owner);
    if (access !== 'write') throw writeDenied(identity, path);
  }

  /**
   * PERMISSION_DENIED unless the token's scopes allow `domain:action` (on `path`, when the
   * operation has one). For operations that are not about one item (listing users, creating a group).
   */
  assertScope(identity: CallerIdentity, domain: ScopeDomain, action: ScopeAction, path?: string): void {
    if (scopesAllow(identity.scopes, { domain, action, path })) return;
    const what = path === undefined ? `${domain}:${action}` : `${domain}:${action} on "${path}"`;
    throw new MeshError(
      'PERMISSION_DENIED',
      `the token's scopes (${(identity.scopes ?? []).join(', ') || 'none'}) do not allow ${what}`,
    );
  }

  /** PERMISSION_DENIED unless the identity is an admin of its workspace. */
  assertAdmin(identity: CallerIdentity, what: string): void {
    if (!identity.isAdmin) throw new MeshError('PERMISSION_DENIED', `only workspace admins may ${what}`);
  }

  /**
   * A predicate for filtering a list: folder roles are read once, then each path is decided
   * without a query. Paths that fail to parse are left out.
   */
  async readFilter(identity: CallerIdentity, domain?: ScopeDomain): Promise<(path: string) => boolean> {
    const folders = new Map(
      (await this.folders.list(identity.workspace)).map((f) => [f.name, f as FolderRoles]),
    );
    return (path) => {
      let parsed: ItemPath;
      try {
        parsed = parseItemPath(path);
      } catch {
        return false;
      }
      const folder = parsed.kind === 'folder' ? folders.get(parsed.owner) : undefined;
      return effectiveAccess(identity, parsed, path, folder, domain) !== 'none';
    };
  }

  private async folderOf(identity: CallerIdentity, path: ItemPath): Promise<FolderRoles | undefined> {
    return path.kind === 'folder' ? this.folders.findRoles(identity.workspace, path.owner) : undefined;
  }
}

function writeDenied(identity: CallerIdentity, path: string): MeshError {
  const who =
    identity.kind === 'job'
      ? `job ${identity.jobId ?? ''} (as ${identity.onBehalfOf ?? identity.username})`
      : identity.username;
  return new MeshError('PERMISSION_DENIED', `${who} may not write "${path}"`, { path });
}

function folderNotFound(name: string): MeshError {
  return new MeshError('NOT_FOUND', `folder "${name}" not found`, { folder: name });
}
