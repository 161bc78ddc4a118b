import { InjectRepository } from '@flowmesh/persistence';
import { Injectable } from '@nestjs/common';
import type { EntityManager, Repository } from 'typeorm';
import type { FolderRoles } from '../access/access-policy.js';
import { FolderEntity } from './folder.entity.js';

@Injectable()
export class FolderRepository {
  constructor(@InjectRepository(FolderEntity) private readonly folders: Repository<FolderEntity>) {}

  async findRoles(workspace: string, name: string): Promise<FolderRoles | undefined> {
    const folder = await this.folders.findOne({
      where: { workspaceId: workspace, name },
      select: { owners: true, writers: true, readers: true },
    });
    return folder ?? undefined;
  }

  async find(workspace: string, name: string): Promise<FolderEntity | undefined> {
    return (await this.folders.findOneBy({ workspaceId: workspace, name })) ?? undefined;
  }

  async list(workspace: string): Promise<FolderEntity[]> {
    return this.folders.find({ where: { workspaceId: workspace }, order: { name: 'ASC' } });
  }

  /** Inserts; false when a folder of that name exists. */
  async insert(folder: Omit<FolderEntity, 'createdAt' | 'updatedAt'>): Promise<boolean> {
    const result = await this.folders
      .createQueryBuilder()
      .insert()
      .values(folder)
      .orIgnore()
      .returning(['name'])
      .execute();
    return (result.raw as unknown[]).length > 0;
  }

  async save(folder: FolderEntity): Promise<FolderEntity> {
    return this.folders.save(folder);
  }

  async delete(workspace: string, name: string, manager?: EntityManager): Promise<void> {
    await (manager?.getRepository(FolderEntity) ?? this.folders).delete({ workspaceId: workspace, name });
  }
}
