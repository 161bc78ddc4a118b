import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ResourceTypeEntity } from './resource-type.entity.js';

export interface BuiltinTypeRow {
  readonly name: string;
  readonly schema: Record<string, unknown>;
  readonly description: string;
}

@Injectable()
export class ResourceTypeRepository {
  find(manager: EntityManager, workspaceId: string, name: string): Promise<ResourceTypeEntity | null> {
    return manager.findOneBy(ResourceTypeEntity, { workspaceId, name });
  }

  list(manager: EntityManager, workspaceId: string): Promise<ResourceTypeEntity[]> {
    return manager.find(ResourceTypeEntity, { where: { workspaceId }, order: { name: 'ASC' } });
  }

  async insert(
    manager: EntityManager,
    row: Omit<ResourceTypeEntity, 'createdAt' | 'editedAt'>,
  ): Promise<ResourceTypeEntity> {
    const [created] = await manager.query<Array<{ created_at: Date; edited_at: Date }>>(
      `INSERT INTO "resource_type" ("workspace_id", "name", "schema", "description", "builtin", "created_by")
       VALUES ($1, $2, $3::jsonb, $4, $5, $6) RETURNING "created_at", "edited_at"`,
      [row.workspaceId, row.name, JSON.stringify(row.schema), row.description, row.builtin, row.createdBy],
    );
    return Object.assign(new ResourceTypeEntity(), row, {
      createdAt: created.created_at,
      editedAt: created.edited_at,
    });
  }

  async update(
    manager: EntityManager,
    workspaceId: string,
    name: string,
    changes: { schema: Record<string, unknown>; description: string | null },
  ): Promise<void> {
    await manager.query(
      `UPDATE "resource_type" SET "schema" = $3::jsonb, "description" = $4, "edited_at" = now()
       WHERE "workspace_id" = $1 AND "name" = $2`,
      [workspaceId, name, JSON.stringify(changes.schema), changes.description],
    );
  }

  async delete(manager: EntityManager, workspaceId: string, name: string): Promise<void> {
    await manager.delete(ResourceTypeEntity, { workspaceId, name });
  }

  async countResourcesOfType(manager: EntityManager, workspaceId: string, name: string): Promise<number> {
    const [row] = await manager.query<Array<{ count: number }>>(
      `SELECT count(*)::int AS "count" FROM "resource" WHERE "workspace_id" = $1 AND "resource_type" = $2`,
      [workspaceId, name],
    );
    return row?.count ?? 0;
  }

  /**
   * Creates or refreshes the built-in types of every given workspace in one statement; a row
   * already equal is left untouched, so a restart writes nothing.
   */
  async upsertBuiltins(
    manager: EntityManager,
    workspaceIds: readonly string[],
    types: readonly BuiltinTypeRow[],
  ): Promise<number> {
    if (workspaceIds.length === 0 || types.length === 0) return 0;
    const rows = await manager.query<unknown[]>(
      `INSERT INTO "resource_type" ("workspace_id", "name", "schema", "description", "builtin", "created_by")
       SELECT w.id, t.name, t.schema, t.description, true, 'system'
       FROM unnest($1::text[]) AS w(id)
       CROSS JOIN jsonb_to_recordset($2::jsonb) AS t(name text, schema jsonb, description text)
       WHERE EXISTS (SELECT 1 FROM "workspace" WHERE "id" = w.id)
       ORDER BY w.id, t.name
       ON CONFLICT ("workspace_id", "name") DO UPDATE
         SET "schema" = EXCLUDED."schema", "description" = EXCLUDED."description", "builtin" = true, "edited_at" = now()
         WHERE "resource_type"."schema" IS DISTINCT FROM EXCLUDED."schema"
            OR "resource_type"."description" IS DISTINCT FROM EXCLUDED."description"
            OR NOT "resource_type"."builtin"
       RETURNING 1`,
      [workspaceIds, JSON.stringify(types)],
    );
    return rows.length;
  }

  async listWorkspaceIds(manager: EntityManager): Promise<string[]> {
    const rows = await manager.query<Array<{ id: string }>>(`SELECT "id" FROM "workspace" ORDER BY "id"`);
    return rows.map((row) => row.id);
  }
}
