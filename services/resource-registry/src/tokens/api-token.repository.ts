import { InjectRepository } from '@flowmesh/persistence';
import { Injectable } from '@nestjs/common';
import { IsNull, type EntityManager, type Repository } from 'typeorm';
import { ApiTokenEntity } from './api-token.entity.js';

export type NewApiToken = Pick<
  ApiTokenEntity,
  'tokenHash' | 'prefix' | 'email' | 'workspaceId' | 'label' | 'scopes' | 'expiresAt'
>;

@Injectable()
export class ApiTokenRepository {
  constructor(@InjectRepository(ApiTokenEntity) private readonly tokens: Repository<ApiTokenEntity>) {}

  async insert(token: NewApiToken, manager?: EntityManager): Promise<ApiTokenEntity> {
    const repository = manager?.getRepository(ApiTokenEntity) ?? this.tokens;
    return repository.save(repository.create(token));
  }

  /** The account's tokens that were not revoked, newest first (expired ones included: the user sees why one stopped). */
  async listActive(email: string): Promise<ApiTokenEntity[]> {
    return this.tokens.find({ where: { email, revokedAt: IsNull() }, order: { createdAt: 'DESC' } });
  }

  /** Revokes the account's token with this prefix: the workspace it worked in, or false when it has none. */
  async revoke(
    email: string,
    prefix: string,
    now: Date,
    manager?: EntityManager,
  ): Promise<{ workspace: string | null } | false> {
    const repository = manager?.getRepository(ApiTokenEntity) ?? this.tokens;
    const result = await repository
      .createQueryBuilder()
      .update()
      .set({ revokedAt: now })
      .where({ email, prefix, revokedAt: IsNull() })
      .returning(['workspaceId'])
      .execute();
    const rows = result.raw as Array<{ workspace_id: string | null }>;
    if (rows.length === 0) return false;
    return { workspace: rows[0]?.workspace_id ?? null };
  }
}
