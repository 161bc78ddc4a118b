import type { AdminInitReply } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ApiTokenEntity } from '../tokens/api-token.entity.js';
import { apiTokenPrefix, generateApiToken, hashApiToken } from '../tokens/api-token-secret.util.js';
import { AccountEntity } from '../users/account.entity.js';
import { WorkspaceUserEntity } from '../users/workspace-user.entity.js';
import { WorkspaceEntity } from '../workspaces/workspace.entity.js';
import type { IdentityConfig } from './identity.config.js';
import { IDENTITY_CONFIG } from './identity.tokens.js';

/** The workspace a fresh database gets. */
export const MAIN_WORKSPACE = 'main';

/**
 * The first admin: on a database without a super admin, creates the workspace `main`, the admin
 * (a super admin and admin of `main`) and their API token. Idempotent, and safe when several
 * replicas start at once (one transaction under an advisory lock).
 */
@Injectable()
export class AdminBootstrapService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(IDENTITY_CONFIG) private readonly config: IdentityConfig,
  ) {}

  async init(adminToken: string | undefined): Promise<AdminInitReply> {
    return this.dataSource.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('flowmesh.registry.admin-bootstrap'))`);
      const existing = await this.existingAdmin(tx);
      if (existing) return { created: false, ...existing };

      const { adminEmail: email, adminUsername: username } = this.config;
      await tx.upsert(AccountEntity, { email, isSuperAdmin: true }, ['email']);
      await tx
        .createQueryBuilder()
        .insert()
        .into(WorkspaceEntity)
        .values({ id: MAIN_WORKSPACE, name: MAIN_WORKSPACE })
        .orIgnore()
        .execute();
      await tx.upsert(WorkspaceUserEntity, { workspaceId: MAIN_WORKSPACE, username, email, isAdmin: true }, [
        'workspaceId',
        'username',
      ]);
      const token = adminToken ?? generateApiToken();
      await tx.insert(ApiTokenEntity, {
        tokenHash: hashApiToken(token),
        prefix: apiTokenPrefix(token),
        email,
        workspaceId: null,
        label: adminToken === undefined ? 'first admin (generated)' : 'first admin (FLOWMESH_ADMIN_TOKEN)',
        scopes: null,
        expiresAt: null,
      });
      return {
        created: true,
        workspace: MAIN_WORKSPACE,
        username,
        email,
        ...(adminToken === undefined ? { token } : {}),
      };
    });
  }

  /** Whether this token is one the database knows (to warn about an ignored FLOWMESH_ADMIN_TOKEN). */
  async knowsToken(token: string): Promise<boolean> {
    return this.dataSource.getRepository(ApiTokenEntity).existsBy({ tokenHash: hashApiToken(token) });
  }

  private async existingAdmin(tx: EntityManager): Promise<Omit<AdminInitReply, 'created'> | undefined> {
    const rows: Array<{ email: string; username: string | null; workspace: string | null }> = await tx.query(
      `SELECT a.email, u.username, u.workspace_id AS "workspace"
         FROM account a LEFT JOIN workspace_user u ON u.email = a.email
        WHERE a.is_super_admin
        ORDER BY a.created_at, (u.workspace_id = $1) DESC NULLS LAST
        LIMIT 1`,
      [MAIN_WORKSPACE],
    );
    const row = rows[0];
    return row && { email: row.email, username: row.username ?? '', workspace: row.workspace ?? '' };
  }
}
