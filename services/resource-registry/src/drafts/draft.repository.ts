import type { DraftItemKind } from '@flowmesh/contracts';
import { InjectRepository } from '@flowmesh/persistence';
import { Injectable } from '@nestjs/common';
import type { EntityManager, Repository } from 'typeorm';
import { DraftEntity } from './draft.entity.js';

export interface DraftKey {
  readonly workspace: string;
  readonly itemKind: DraftItemKind;
  readonly path: string;
  readonly username: string;
}

@Injectable()
export class DraftRepository {
  constructor(@InjectRepository(DraftEntity) private readonly drafts: Repository<DraftEntity>) {}

  /** Inserts the draft or replaces its value: one row per (workspace, kind, path, user). */
  async upsert(key: DraftKey, value: Record<string, unknown>): Promise<DraftEntity> {
    const [row] = await this.drafts.query<Array<{ id: string; created_at: Date; updated_at: Date }>>(
      `INSERT INTO "draft" ("workspace_id", "item_kind", "path", "username", "value")
       VALUES ($1, $2, $3, $4, $5::jsonb)
       ON CONFLICT ("workspace_id", "item_kind", "path", "username")
       DO UPDATE SET "value" = EXCLUDED."value", "updated_at" = now()
       RETURNING "id", "created_at", "updated_at"`,
      [key.workspace, key.itemKind, key.path, key.username, JSON.stringify(value)],
    );
    return Object.assign(new DraftEntity(), {
      id: row.id,
      workspaceId: key.workspace,
      itemKind: key.itemKind,
      path: key.path,
      username: key.username,
      value,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    });
  }

  /** One user's drafts, most recently saved first, without their values. */
  list(workspace: string, username: string, itemKind?: DraftItemKind): Promise<DraftEntity[]> {
    return this.drafts.find({
      select: {
        id: true,
        workspaceId: true,
        itemKind: true,
        path: true,
        username: true,
        createdAt: true,
        updatedAt: true,
      },
      where: { workspaceId: workspace, username, ...(itemKind ? { itemKind } : {}) },
      order: { updatedAt: 'DESC', path: 'ASC' },
    });
  }

  findById(workspace: string, id: string): Promise<DraftEntity | null> {
    return this.drafts.findOneBy({ workspaceId: workspace, id });
  }

  find(key: DraftKey): Promise<DraftEntity | null> {
    return this.drafts.findOneBy(whereKey(key));
  }

  /** The draft, locked until the transaction of `manager` ends. */
  findForUpdate(manager: EntityManager, key: DraftKey): Promise<DraftEntity | null> {
    return manager.findOne(DraftEntity, { where: whereKey(key), lock: { mode: 'pessimistic_write' } });
  }

  /** Whether a row went. */
  async delete(key: DraftKey, manager?: EntityManager): Promise<boolean> {
    const result = await (manager ?? this.drafts.manager).delete(DraftEntity, whereKey(key));
    return (result.affected ?? 0) > 0;
  }
}

function whereKey(key: DraftKey) {
  return { workspaceId: key.workspace, itemKind: key.itemKind, path: key.path, username: key.username };
}
