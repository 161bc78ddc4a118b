import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { insertIfAbsent } from '../identity/insert-if-absent.util.js';
import { GroupMemberEntity } from './group-member.entity.js';
import { WorkspaceGroupEntity } from './workspace-group.entity.js';

export interface GroupRow {
  readonly name: string;
  readonly summary: string | null;
  readonly members: string[];
  readonly createdAt: Date;
}

const GROUPS = `
  SELECT g.name, g.summary, g.created_at AS "createdAt",
         COALESCE(array_agg(m.username ORDER BY m.username) FILTER (WHERE m.username IS NOT NULL), '{}') AS "members"
    FROM workspace_group g
    LEFT JOIN group_member m ON m.workspace_id = g.workspace_id AND m.group_name = g.name`;

@Injectable()
export class GroupRepository {
  constructor(private readonly dataSource: DataSource) {}

  async list(workspace: string): Promise<GroupRow[]> {
    return this.dataSource.query(
      `${GROUPS} WHERE g.workspace_id = $1 GROUP BY g.workspace_id, g.name ORDER BY g.name`,
      [workspace],
    );
  }

  async find(workspace: string, name: string): Promise<GroupRow | undefined> {
    const rows: GroupRow[] = await this.dataSource.query(
      `${GROUPS} WHERE g.workspace_id = $1 AND g.name = $2 GROUP BY g.workspace_id, g.name`,
      [workspace, name],
    );
    return rows[0];
  }

  /** False when a group of that name exists. */
  async insert(
    workspace: string,
    name: string,
    summary: string | null,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<boolean> {
    return insertIfAbsent(manager, WorkspaceGroupEntity, { workspaceId: workspace, name, summary }, 'name');
  }

  async delete(
    workspace: string,
    name: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    await manager.getRepository(WorkspaceGroupEntity).delete({ workspaceId: workspace, name });
  }

  /** False when the user already was a member. */
  async addMember(
    workspace: string,
    group: string,
    username: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<boolean> {
    return insertIfAbsent(
      manager,
      GroupMemberEntity,
      { workspaceId: workspace, groupName: group, username },
      'username',
    );
  }

  /** False when the user was not a member. */
  async removeMember(
    workspace: string,
    group: string,
    username: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<boolean> {
    const result = await manager
      .getRepository(GroupMemberEntity)
      .delete({ workspaceId: workspace, groupName: group, username });
    return (result.affected ?? 0) > 0;
  }

  async exists(workspace: string, name: string): Promise<boolean> {
    return this.dataSource.getRepository(WorkspaceGroupEntity).existsBy({ workspaceId: workspace, name });
  }
}
