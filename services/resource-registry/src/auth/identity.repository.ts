import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface StoredApiToken {
  readonly email: string;
  /** Null: valid in every workspace of the account. */
  readonly workspaceId: string | null;
  readonly isSuperAdmin: boolean;
  readonly scopes: string[] | null;
  readonly expiresAt: Date | null;
  readonly revokedAt: Date | null;
}

export interface StoredMember {
  readonly username: string;
  readonly email: string;
  readonly isAdmin: boolean;
  /** Group names this member belongs to (without the implicit `all`). */
  readonly groups: string[];
}

const MEMBER_SELECT = `
  SELECT u.username, u.email, u.is_admin AS "isAdmin",
         COALESCE(array_agg(m.group_name ORDER BY m.group_name) FILTER (WHERE m.group_name IS NOT NULL), '{}') AS "groups"
    FROM workspace_user u
    LEFT JOIN group_member m ON m.workspace_id = u.workspace_id AND m.username = u.username`;

/** The reads authentication needs on every request, each one query. */
@Injectable()
export class IdentityRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findApiToken(tokenHash: string): Promise<StoredApiToken | undefined> {
    const rows: StoredApiToken[] = await this.dataSource.query(
      `SELECT t.email, t.workspace_id AS "workspaceId", a.is_super_admin AS "isSuperAdmin", t.scopes,
              t.expires_at AS "expiresAt", t.revoked_at AS "revokedAt"
         FROM api_token t JOIN account a ON a.email = t.email
        WHERE t.token_hash = $1`,
      [tokenHash],
    );
    return rows[0];
  }

  /** The token and, in one round trip, the member its account is in `workspace` (if any). */
  async findApiTokenInWorkspace(
    tokenHash: string,
    workspace: string,
  ): Promise<{ token: StoredApiToken; member: StoredMember | undefined } | undefined> {
    const rows: Array<
      StoredApiToken & { username: string | null; isAdmin: boolean | null; groups: string[] }
    > = await this.dataSource.query(
      `SELECT t.email, t.workspace_id AS "workspaceId", a.is_super_admin AS "isSuperAdmin", t.scopes,
                t.expires_at AS "expiresAt", t.revoked_at AS "revokedAt", u.username, u.is_admin AS "isAdmin",
                COALESCE(array_agg(m.group_name ORDER BY m.group_name) FILTER (WHERE m.group_name IS NOT NULL), '{}') AS "groups"
           FROM api_token t
           JOIN account a ON a.email = t.email
           LEFT JOIN workspace_user u ON u.workspace_id = $2 AND u.email = t.email
           LEFT JOIN group_member m ON m.workspace_id = u.workspace_id AND m.username = u.username
          WHERE t.token_hash = $1
          GROUP BY t.id, a.email, u.workspace_id, u.username`,
      [tokenHash, workspace],
    );
    const row = rows[0];
    if (!row) return undefined;
    const token = {
      email: row.email,
      workspaceId: row.workspaceId,
      isSuperAdmin: row.isSuperAdmin,
      scopes: row.scopes,
      expiresAt: row.expiresAt,
      revokedAt: row.revokedAt,
    };
    const member =
      row.username === null
        ? undefined
        : { username: row.username, email: row.email, isAdmin: row.isAdmin === true, groups: row.groups };
    return { token, member };
  }

  async findMemberByEmail(workspace: string, email: string): Promise<StoredMember | undefined> {
    const rows: StoredMember[] = await this.dataSource.query(
      `${MEMBER_SELECT} WHERE u.workspace_id = $1 AND u.email = $2 GROUP BY u.workspace_id, u.username`,
      [workspace, email],
    );
    return rows[0];
  }

  async findMemberByUsername(workspace: string, username: string): Promise<StoredMember | undefined> {
    const rows: StoredMember[] = await this.dataSource.query(
      `${MEMBER_SELECT} WHERE u.workspace_id = $1 AND u.username = $2 GROUP BY u.workspace_id, u.username`,
      [workspace, username],
    );
    return rows[0];
  }

  async groupExists(workspace: string, name: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM workspace_group WHERE workspace_id = $1 AND name = $2`,
      [workspace, name],
    );
    return rows.length > 0;
  }
}
