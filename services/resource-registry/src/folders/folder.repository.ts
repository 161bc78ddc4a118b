import { InjectRepository } from '@flowmesh/persistence';
import { Injectable } from '@nestjs/common';
import type { EntityManager, Repository } from 'typeorm';
import type { FolderRoles } from '../access/access-policy.js';
import { insertIfAbsent } from '../identity/insert-if-absent.util.js';
import { FolderRolesCache } from './folder-roles.cache.js';
import { FolderEntity } from './folder.entity.js';

@Injectable()
export class FolderRepository {
  // Added by the history/deploy engineer for the registry benchmark's hot path (every access
  // check of an f/ path reads roles); every folder write below forgets them.
  private readonly roles = new FolderRolesCache();

  constructor(@InjectRepository(FolderEntity) private readonly folders: Repository<FolderEntity>) {}

  async findRoles(workspace: string, name: string): Promise<FolderRoles | undefined> {
    return this.roles.get(workspace, name, async () => {
      const folder = await this.folders.findOne({
        where: { workspaceId: workspace, name },
        select: { owners: true, writers: true, readers: true },
      });
      return folder ?? undefined;
    });
  }

  async find(workspace: string, name: string): Promise<FolderEntity | undefined> {
    return (await this.folders.findOneBy({ workspaceId: workspace, name })) ?? undefined;
  }

  async list(workspace: string): Promise<FolderEntity[]> {
    return this.folders.find({ where: { workspaceId: workspace }, order: { name: 'ASC' } });
  }

  /** Forgets every cached folder's roles (a folder changed, here or on another replica). */
  forgetRoles(): void {
    this.roles.invalidate();
  }

  /** Inserts; false when a folder of that name exists. */
  async insert(
    folder: Omit<FolderEntity, 'createdAt' | 'updatedAt'>,
    manager?: EntityManager,
  ): Promise<boolean> {
    this.roles.invalidate();
    try {
      return await insertIfAbsent(manager ?? this.folders.manager, FolderEntity, folder, 'name');
    } finally {
      this.roles.invalidate();
    }
  }

  async save(folder: FolderEntity, manager?: EntityManager): Promise<FolderEntity> {
    this.roles.invalidate();
    try {
      return await (manager?.getRepository(FolderEntity) ?? this.folders).save(folder);
    } finally {
      this.roles.invalidate();
    }
  }

  async delete(workspace: string, name: string, manager?: EntityManager): Promise<void> {
    this.roles.invalidate();
    try {
      await (manager?.getRepository(FolderEntity) ?? this.folders).delete({ workspaceId: workspace, name });
    } finally {
      this.roles.invalidate();
    }
  }
}
