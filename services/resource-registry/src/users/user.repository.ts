import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AccountEntity } from './account.entity.js';
import { WorkspaceUserEntity } from './workspace-user.entity.js';

export interface MemberRow {
  readonly username: string;
  readonly email: string;
  readonly isAdmin: boolean;
  readonly groups: string[];
  readonly createdAt: Date;
}

const MEMBERS = `
  SELECT u.username, u.email, u.is_admin AS "isAdmin", u.created_at AS "createdAt",
         COALESCE(array_agg(m.group_name ORDER BY m.group_name) FILTER (WHERE m.group_name IS NOT NULL), '{}') AS "groups"
    FROM workspace_user u
    LEFT JOIN group_member m ON m.workspace_id = u.workspace_id AND m.username = u.username`;

@Injectable()
export class UserRepository {
  constructor(private readonly dataSource: DataSource) {}

  async list(workspace: string): Promise<MemberRow[]> {
    return this.dataSource.query(
      `${MEMBERS} WHERE u.workspace_id = $1 GROUP BY u.workspace_id, u.username ORDER BY u.username`,
      [workspace],
    );
  }

  async find(workspace: string, username: string): Promise<MemberRow | undefined> {
    const rows: MemberRow[] = await this.dataSource.query(
      `${MEMBERS} WHERE u.workspace_id = $1 AND u.username = $2 GROUP BY u.workspace_id, u.username`,
      [workspace, username],
    );
    return rows[0];
  }

  /** Whether `email` or `username` is taken in the workspace (which one, for the error). */
  async conflictOf(
    workspace: string,
    email: string,
    username: string,
  ): Promise<'email' | 'username' | undefined> {
    const rows: Array<{ email: string; username: string }> = await this.dataSource.query(
      `SELECT email, username FROM workspace_user WHERE workspace_id = $1 AND (email = $2 OR username = $3)`,
      [workspace, email, username],
    );
    if (rows.some((row) => row.username === username)) return 'username';
    return rows.length > 0 ? 'email' : undefined;
  }

  /** The member and, the first time the email is seen, its account, in one transaction. */
  async add(
    member: Pick<WorkspaceUserEntity, 'workspaceId' | 'username' | 'email' | 'isAdmin'>,
    manager?: EntityManager,
  ): Promise<void> {
    const write = async (tx: EntityManager) => {
      await tx
        .createQueryBuilder()
        .insert()
        .into(AccountEntity)
        .values({ email: member.email })
        .orIgnore()
        .execute();
      await tx.insert(WorkspaceUserEntity, member);
    };
    await (manager ? write(manager) : this.dataSource.transaction(write));
  }

  async setAdmin(
    workspace: string,
    username: string,
    isAdmin: boolean,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    await manager
      .getRepository(WorkspaceUserEntity)
      .update({ workspaceId: workspace, username }, { isAdmin });
  }

  async remove(
    workspace: string,
    username: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    await manager.getRepository(WorkspaceUserEntity).delete({ workspaceId: workspace, username });
  }

  /** The user name an account has in some workspace, to reuse when it joins another. */
  async anyUsernameOf(email: string): Promise<string | undefined> {
    const row = await this.dataSource
      .getRepository(WorkspaceUserEntity)
      .findOne({ where: { email }, order: { createdAt: 'ASC' }, select: { username: true } });
    return row?.username;
  }
}
