import { JOB_TOKEN_PREFIX, MeshError, type CallerIdentity, type JobTokenClaims } from '@flowmesh/contracts';
import { AuthenticationCache } from '@flowmesh/http';
import { Injectable } from '@nestjs/common';
import { hashApiToken } from '../tokens/api-token-secret.util.js';
import { JobTokenSigner } from '../tokens/job-token.signer.js';
import { ALL_GROUP, type AccountIdentity, type Authenticated } from './authenticated.js';
import { IdentityRepository, type StoredApiToken, type StoredMember } from './identity.repository.js';

const INVALID = 'the token is invalid';
/** Keys of cached principals: no workspace id or token hash starts with a NUL. */
const PRINCIPAL_KEY = '\u0000principal\n';

/**
 * Turns a token into an identity. A bad, expired or revoked token is UNAUTHENTICATED (the token is
 * never echoed); a workspace that does not exist or that the account is not a member of is the
 * same NOT_FOUND, so nobody learns which workspaces exist.
 */
@Injectable()
export class AuthenticateService {
  constructor(
    private readonly identities: IdentityRepository,
    private readonly jobTokens: JobTokenSigner,
    private readonly cache: AuthenticationCache<Authenticated>,
  ) {}

  async authenticate(token: string, workspace: string, now = new Date()): Promise<Authenticated> {
    const key = `${workspace}\n${hashApiToken(token)}`;
    const cached = this.cache.get(key, now.getTime());
    if (cached && (cached.expiresAt === null || cached.expiresAt > now)) return cached;
    const load = () =>
      token.startsWith(JOB_TOKEN_PREFIX)
        ? this.authenticateJob(token, workspace, now)
        : this.authenticateApiToken(token, workspace, now);
    const shared = await this.cache.loadOnce(key, now.getTime(), load);
    // A load this request joined checked expiry at its own start: expired since, ask again (and fail).
    return shared.expiresAt === null || shared.expiresAt > now ? shared : load();
  }

  private async authenticateApiToken(token: string, workspace: string, now: Date): Promise<Authenticated> {
    const found = await this.identities.findApiTokenInWorkspace(hashApiToken(token), workspace);
    const stored = checkValid(found?.token, now);
    if (stored.workspaceId !== null && stored.workspaceId !== workspace) throw notValidIn(workspace);
    const member = found?.member;
    if (!member) throw workspaceNotFound(workspace);
    const identity: CallerIdentity = {
      workspace,
      kind: 'user',
      ...memberFields(member),
      ...(stored.scopes === null ? {} : { scopes: stored.scopes }),
    };
    return { identity, expiresAt: stored.expiresAt };
  }

  async authenticateAccount(token: string, now = new Date()): Promise<AccountIdentity> {
    if (token.startsWith(JOB_TOKEN_PREFIX)) {
      throw new MeshError(
        'UNAUTHENTICATED',
        'a job token is valid only inside its workspace (/api/w/<workspace>/...)',
      );
    }
    const stored = await this.validApiToken(token, now);
    return {
      email: stored.email,
      isSuperAdmin: stored.isSuperAdmin,
      ...(stored.workspaceId === null ? {} : { workspace: stored.workspaceId }),
      ...(stored.scopes === null ? {} : { scopes: stored.scopes }),
    };
  }

  private async validApiToken(token: string, now: Date): Promise<StoredApiToken> {
    return checkValid(await this.identities.findApiToken(hashApiToken(token)), now);
  }

  private async authenticateJob(token: string, workspace: string, now: Date): Promise<Authenticated> {
    const claims = this.jobTokens.verify(token);
    if (!claims) throw new MeshError('UNAUTHENTICATED', INVALID);
    const expiresAt = new Date(claims.exp * 1000);
    if (expiresAt <= now) throw new MeshError('UNAUTHENTICATED', 'the job token has expired');
    if (claims.workspace !== workspace) {
      throw notValidIn(workspace);
    }
    const principal = await this.cachedPrincipal(workspace, claims.onBehalfOf, now);
    if (!principal) {
      throw new MeshError(
        'UNAUTHENTICATED',
        `the job token acts as ${claims.onBehalfOf}, who is no longer in workspace "${workspace}"`,
      );
    }
    return { identity: jobIdentity(workspace, claims, principal), expiresAt };
  }

  /**
   * `resolvePrincipal`, kept in the authentication cache: each job has a token of its own, most
   * used by a few requests, and all of a run's act as one principal. Dropped with the
   * authentications whenever someone's membership, groups or admin flag change (here, or on any
   * replica through the identity events); a principal that is not there is never kept.
   */
  private async cachedPrincipal(
    workspace: string,
    onBehalfOf: string,
    now: Date,
  ): Promise<PrincipalFields | undefined> {
    const key = `${PRINCIPAL_KEY}${workspace}\n${onBehalfOf}`;
    const cached = this.cache.get(key, now.getTime());
    if (cached) {
      const { username, email, isAdmin, groups } = cached.identity;
      return { username, email, isAdmin, groups };
    }
    // Taken before reading: a change committed meanwhile clears the cache, and this read is not kept.
    const readSince = this.cache.generation;
    const fields = await this.resolvePrincipal(workspace, onBehalfOf);
    if (fields)
      this.cache.set(
        key,
        { identity: { workspace, kind: 'user', ...fields }, expiresAt: null },
        now.getTime(),
        readSince,
      );
    return fields;
  }

  /** The identity fields of `u/<user>`, `g/<group>` or an email in `workspace`, or undefined. */
  async resolvePrincipal(workspace: string, onBehalfOf: string): Promise<PrincipalFields | undefined> {
    if (onBehalfOf.startsWith('g/')) {
      const group = onBehalfOf.slice(2);
      if (!(await this.identities.groupExists(workspace, group))) return undefined;
      return { username: onBehalfOf, email: '', isAdmin: false, groups: uniqueGroups([group]) };
    }
    const member = onBehalfOf.startsWith('u/')
      ? await this.identities.findMemberByUsername(workspace, onBehalfOf.slice(2))
      : await this.identities.findMemberByEmail(workspace, onBehalfOf);
    return member ? memberFields(member) : undefined;
  }
}

function checkValid(stored: StoredApiToken | undefined, now: Date): StoredApiToken {
  if (!stored) throw new MeshError('UNAUTHENTICATED', INVALID);
  if (stored.revokedAt !== null) throw new MeshError('UNAUTHENTICATED', 'the token was revoked');
  if (stored.expiresAt !== null && stored.expiresAt <= now)
    throw new MeshError('UNAUTHENTICATED', 'the token has expired');
  return stored;
}

export type PrincipalFields = Pick<CallerIdentity, 'username' | 'email' | 'isAdmin' | 'groups'>;

function memberFields(member: StoredMember): PrincipalFields {
  return {
    username: member.username,
    email: member.email,
    isAdmin: member.isAdmin,
    groups: uniqueGroups(member.groups),
  };
}

function uniqueGroups(groups: readonly string[]): string[] {
  return [...new Set([ALL_GROUP, ...groups])];
}

function jobIdentity(workspace: string, claims: JobTokenClaims, principal: PrincipalFields): CallerIdentity {
  return {
    workspace,
    kind: 'job',
    ...principal,
    ...(claims.scopes === undefined ? {} : { scopes: claims.scopes }),
    jobId: claims.jobId,
    onBehalfOf: claims.onBehalfOf,
  };
}

function notValidIn(workspace: string): MeshError {
  return new MeshError('UNAUTHENTICATED', `the token is not valid in workspace "${workspace}"`);
}

export function workspaceNotFound(workspace: string): MeshError {
  return new MeshError('NOT_FOUND', `workspace "${workspace}" not found`, { workspace });
}
