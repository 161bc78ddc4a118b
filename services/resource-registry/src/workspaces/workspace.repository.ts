import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { insertIfAbsent } from '../identity/insert-if-absent.util.js';
import { WorkspaceEntity } from './workspace.entity.js';

@Injectable()
export class WorkspaceRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Workspaces the account is a member of. */
  async listForEmail(email: string): Promise<WorkspaceEntity[]> {
    return this.dataSource
      .getRepository(WorkspaceEntity)
      .createQueryBuilder('w')
      .innerJoin('workspace_user', 'u', 'u.workspace_id = w.id AND u.email = :email', { email })
      .orderBy('w.id')
      .getMany();
  }

  /** False when a workspace with this id exists. */
  async insert(workspace: Pick<WorkspaceEntity, 'id' | 'name'>, manager: EntityManager): Promise<boolean> {
    return insertIfAbsent(manager, WorkspaceEntity, workspace, 'id');
  }

  async find(id: string): Promise<WorkspaceEntity | undefined> {
    return (await this.dataSource.getRepository(WorkspaceEntity).findOneBy({ id })) ?? undefined;
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }
}
