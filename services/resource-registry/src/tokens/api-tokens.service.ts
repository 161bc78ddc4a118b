import { MeshError, narrowScopes, type ApiToken, type CallerIdentity } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service.js';
import { IdentityEventWriter } from '../identity/identity-event.writer.js';
import { UserRepository } from '../users/user.repository.js';
import type { ApiTokenEntity } from './api-token.entity.js';
import { ApiTokenRepository } from './api-token.repository.js';
import { apiTokenPrefix, generateApiToken, hashApiToken } from './api-token-secret.util.js';

export interface NewApiTokenRequest {
  readonly label?: string;
  readonly scopes?: readonly string[];
  readonly expiresAt?: string;
  /** An admin creating a token for another member. */
  readonly username?: string;
}

/**
 * API tokens of the caller's account: created (shown once, stored as a hash), listed and revoked.
 * A token made here works only in this workspace.
 * A new token's scopes can only narrow the creating token's, and a job token creates none: a job
 * must not leave behind a credential that outlives it.
 */
@Injectable()
export class ApiTokensService {
  constructor(
    private readonly tokens: ApiTokenRepository,
    private readonly users: UserRepository,
    private readonly access: AccessService,
    private readonly events: IdentityEventWriter,
  ) {}

  async create(
    identity: CallerIdentity,
    request: NewApiTokenRequest,
    now = new Date(),
  ): Promise<ApiToken & { token: string }> {
    this.assertUser(identity);
    this.access.assertScope(identity, 'tokens', 'write');
    const email = await this.ownerEmail(identity, request.username);
    const scopes = narrowScopes(identity.scopes, request.scopes);
    const expiresAt = request.expiresAt === undefined ? null : new Date(request.expiresAt);
    if (expiresAt !== null && expiresAt <= now) {
      throw new MeshError('VALIDATION_FAILED', `expiresAt "${request.expiresAt}" is not in the future`);
    }
    const token = generateApiToken();
    const saved = await this.tokens.insert({
      tokenHash: hashApiToken(token),
      prefix: apiTokenPrefix(token),
      email,
      workspaceId: identity.workspace,
      label: request.label ?? null,
      scopes: scopes ?? null,
      expiresAt,
    });
    return { ...toApiToken(saved), token };
  }

  async list(identity: CallerIdentity): Promise<ApiToken[]> {
    this.assertUser(identity);
    this.access.assertScope(identity, 'tokens', 'read');
    return (await this.tokens.listActive(identity.email)).map(toApiToken);
  }

  async revoke(identity: CallerIdentity, prefix: string, now = new Date()): Promise<{ done: true }> {
    this.assertUser(identity);
    this.access.assertScope(identity, 'tokens', 'write');
    return this.events.commit(async (manager) => {
      const revoked = await this.tokens.revoke(identity.email, prefix, now, manager);
      if (!revoked) {
        throw new MeshError('NOT_FOUND', `token "${prefix}" not found among your tokens`, { prefix });
      }
      const event = { workspace: revoked.workspace, email: identity.email, prefix, by: identity.username };
      return { result: { done: true as const }, facts: [{ name: 'tokenRevoked', event }] };
    });
  }

  private assertUser(identity: CallerIdentity): void {
    if (identity.kind === 'job')
      throw new MeshError('PERMISSION_DENIED', 'a job token cannot manage API tokens');
  }

  private async ownerEmail(identity: CallerIdentity, username: string | undefined): Promise<string> {
    if (username === undefined || username === identity.username) return identity.email;
    this.access.assertAdmin(identity, 'create tokens for other users');
    const member = await this.users.find(identity.workspace, username);
    if (!member)
      throw new MeshError('NOT_FOUND', `user "${username}" not found in workspace "${identity.workspace}"`, {
        username,
      });
    return member.email;
  }
}

function toApiToken(row: ApiTokenEntity): ApiToken {
  return {
    prefix: row.prefix,
    label: row.label,
    email: row.email,
    workspace: row.workspaceId,
    ...(row.scopes === null ? {} : { scopes: row.scopes }),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}
