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

  /** Revokes the account's token with this prefix; false when it has none. */
  async revoke(email: string, prefix: string, now: Date): Promise<boolean> {
    const result = await this.tokens.update({ email, prefix, revokedAt: IsNull() }, { revokedAt: now });
    return (result.affected ?? 0) > 0;
  }
}
