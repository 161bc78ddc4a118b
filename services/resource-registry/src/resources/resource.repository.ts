import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { findItemForUpdate } from '../items/item-row.lock.js';
import { ResourceEntity } from './resource.entity.js';

export type ListedResourceRow = Omit<ResourceEntity, 'value'>;

/** What interpolation needs of a resource, and the length of the value's JSON text (what it weighs). */
export interface StoredResourceValue {
  readonly resourceType: string;
  readonly value: unknown;
  readonly jsonLength: number;
}

const LISTED_COLUMNS = [
  'workspaceId',
  'path',
  'resourceType',
  'description',
  'createdBy',
  'createdAt',
  'editedBy',
  'editedAt',
] as const;

/** Values go in as JSON text cast to jsonb, so a JSON `null` or a bare string is stored as such. */
@Injectable()
export class ResourceRepository {
  /**
   * Raw SQL rather than `findOneBy`: every interpolation level reads one row here, and TypeORM's
   * query building and hydration cost more than the query itself (bench/registry).
   */
  async find(manager: EntityManager, workspaceId: string, path: string): Promise<ResourceEntity | null> {
    const [row] = await manager.query<ResourceEntity[]>(
      `SELECT "workspace_id" AS "workspaceId", "path", "resource_type" AS "resourceType", "value", "description",
              "created_by" AS "createdBy", "created_at" AS "createdAt", "edited_by" AS "editedBy", "edited_at" AS "editedAt"
         FROM "resource" WHERE "workspace_id" = $1 AND "path" = $2`,
      [workspaceId, path],
    );
    return row ? Object.assign(new ResourceEntity(), row) : null;
  }

  /** Type and value only; the value's JSON text is parsed here, so its length is known. */
  async findValue(
    manager: EntityManager,
    workspaceId: string,
    path: string,
  ): Promise<StoredResourceValue | null> {
    const [row] = await manager.query<Array<{ resourceType: string; value: string }>>(
      `SELECT "resource_type" AS "resourceType", "value"::text AS "value"
         FROM "resource" WHERE "workspace_id" = $1 AND "path" = $2`,
      [workspaceId, path],
    );
    if (!row) return null;
    return { resourceType: row.resourceType, value: JSON.parse(row.value), jsonLength: row.value.length };
  }

  findForUpdate(manager: EntityManager, workspaceId: string, path: string): Promise<ResourceEntity | null> {
    return findItemForUpdate(manager, ResourceEntity, workspaceId, path);
  }

  async exists(manager: EntityManager, workspaceId: string, path: string): Promise<boolean> {
    return manager.existsBy(ResourceEntity, { workspaceId, path });
  }

  async insert(
    manager: EntityManager,
    row: Omit<ResourceEntity, 'createdAt' | 'editedAt'>,
  ): Promise<ResourceEntity> {
    const [stamps] = await manager.query<Array<{ created_at: Date; edited_at: Date }>>(
      `INSERT INTO "resource" ("workspace_id", "path", "resource_type", "value", "description", "created_by", "edited_by")
       VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7) RETURNING "created_at", "edited_at"`,
      [
        row.workspaceId,
        row.path,
        row.resourceType,
        JSON.stringify(row.value),
        row.description,
        row.createdBy,
        row.editedBy,
      ],
    );
    return Object.assign(new ResourceEntity(), row, {
      createdAt: stamps.created_at,
      editedAt: stamps.edited_at,
    });
  }

  /** Rewrites the row at `before.path` with `after` (which may carry a new path); returns the edit time. */
  async update(
    manager: EntityManager,
    before: ResourceEntity,
    after: Omit<ResourceEntity, 'editedAt'>,
  ): Promise<Date> {
    const [stamps] = await manager.query<[Array<{ edited_at: Date }>, number]>(
      `UPDATE "resource" SET "path" = $3, "value" = $4::jsonb, "description" = $5, "edited_by" = $6, "edited_at" = now()
       WHERE "workspace_id" = $1 AND "path" = $2 RETURNING "edited_at"`,
      [
        before.workspaceId,
        before.path,
        after.path,
        JSON.stringify(after.value),
        after.description,
        after.editedBy,
      ],
    );
    return stamps[0].edited_at;
  }

  async delete(manager: EntityManager, workspaceId: string, path: string): Promise<void> {
    await manager.delete(ResourceEntity, { workspaceId, path });
  }

  list(
    manager: EntityManager,
    workspaceId: string,
    filter: { resourceTypes?: readonly string[]; pathPrefix?: string },
  ): Promise<ListedResourceRow[]> {
    const query = manager
      .createQueryBuilder(ResourceEntity, 'r')
      .select(LISTED_COLUMNS.map((column) => `r.${column}`))
      .where('r.workspaceId = :workspaceId', { workspaceId })
      .orderBy('r.path', 'ASC');
    if (filter.resourceTypes?.length)
      query.andWhere('r.resourceType IN (:...types)', { types: filter.resourceTypes });
    if (filter.pathPrefix) query.andWhere('starts_with(r.path, :prefix)', { prefix: filter.pathPrefix });
    return query.getMany();
  }
}
