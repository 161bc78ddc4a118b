import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { findItemForUpdate } from '../items/item-row.lock.js';
import { FlowVersionEntity } from './flow-version.entity.js';
import { FlowEntity } from './flow.entity.js';

export type ListedFlowRow = Omit<FlowEntity, 'value' | 'schema'>;

export interface FlowDefinition {
  readonly summary: string;
  readonly description: string | null;
  readonly value: Record<string, unknown>;
  readonly schema: Record<string, unknown> | null;
}

@Injectable()
export class FlowRepository {
  find(manager: EntityManager, workspaceId: string, path: string): Promise<FlowEntity | null> {
    return manager.findOneBy(FlowEntity, { workspaceId, path });
  }

  findForUpdate(manager: EntityManager, workspaceId: string, path: string): Promise<FlowEntity | null> {
    return findItemForUpdate(manager, FlowEntity, workspaceId, path);
  }

  exists(manager: EntityManager, workspaceId: string, path: string): Promise<boolean> {
    return manager.existsBy(FlowEntity, { workspaceId, path });
  }

  findVersion(
    manager: EntityManager,
    workspaceId: string,
    path: string,
    id: number,
  ): Promise<FlowVersionEntity | null> {
    return manager.findOneBy(FlowVersionEntity, { workspaceId, path, id: String(id) });
  }

  /** Appends a version; returns its id. */
  async insertVersion(
    manager: EntityManager,
    workspaceId: string,
    path: string,
    flow: FlowDefinition,
    createdBy: string,
  ): Promise<string> {
    const [row] = await manager.query<Array<{ id: string }>>(
      `INSERT INTO "flow_version" ("workspace_id", "path", "summary", "description", "value", "schema", "created_by")
       VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7) RETURNING "id"`,
      [
        workspaceId,
        path,
        flow.summary,
        flow.description,
        JSON.stringify(flow.value),
        jsonOrNull(flow.schema),
        createdBy,
      ],
    );
    return row.id;
  }

  async insert(manager: EntityManager, row: Omit<FlowEntity, 'createdAt' | 'editedAt'>): Promise<FlowEntity> {
    const [stamps] = await manager.query<Array<{ created_at: Date; edited_at: Date }>>(
      `INSERT INTO "flow" ("workspace_id", "path", "summary", "description", "value", "schema", "version_id", "created_by", "edited_by")
       VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8, $9) RETURNING "created_at", "edited_at"`,
      [
        row.workspaceId,
        row.path,
        row.summary,
        row.description,
        JSON.stringify(row.value),
        jsonOrNull(row.schema),
        row.versionId,
        row.createdBy,
        row.editedBy,
      ],
    );
    return Object.assign(new FlowEntity(), row, { createdAt: stamps.created_at, editedAt: stamps.edited_at });
  }

  /** Rewrites the flow at `before.path` (its versions follow a rename); returns the edit time. */
  async update(
    manager: EntityManager,
    before: FlowEntity,
    after: Omit<FlowEntity, 'editedAt'>,
  ): Promise<Date> {
    const [rows] = await manager.query<[Array<{ edited_at: Date }>, number]>(
      `UPDATE "flow" SET "path" = $3, "summary" = $4, "description" = $5, "value" = $6::jsonb, "schema" = $7::jsonb,
              "version_id" = $8, "edited_by" = $9, "edited_at" = now()
       WHERE "workspace_id" = $1 AND "path" = $2 RETURNING "edited_at"`,
      [
        before.workspaceId,
        before.path,
        after.path,
        after.summary,
        after.description,
        JSON.stringify(after.value),
        jsonOrNull(after.schema),
        after.versionId,
        after.editedBy,
      ],
    );
    if (after.path !== before.path) {
      await manager.update(
        FlowVersionEntity,
        { workspaceId: before.workspaceId, path: before.path },
        { path: after.path },
      );
    }
    return rows[0].edited_at;
  }

  async delete(manager: EntityManager, workspaceId: string, path: string): Promise<void> {
    await manager.delete(FlowEntity, { workspaceId, path });
    await manager.delete(FlowVersionEntity, { workspaceId, path });
  }

  list(
    manager: EntityManager,
    workspaceId: string,
    pathPrefix: string | undefined,
  ): Promise<ListedFlowRow[]> {
    const query = manager
      .createQueryBuilder(FlowEntity, 'f')
      .select([
        'f.workspaceId',
        'f.path',
        'f.summary',
        'f.description',
        'f.versionId',
        'f.createdBy',
        'f.createdAt',
        'f.editedBy',
        'f.editedAt',
      ])
      .where('f.workspaceId = :workspaceId', { workspaceId })
      .orderBy('f.path', 'ASC');
    if (pathPrefix) query.andWhere('starts_with(f.path, :prefix)', { prefix: pathPrefix });
    return query.getMany();
  }

  listVersions(manager: EntityManager, workspaceId: string, path: string): Promise<FlowVersionEntity[]> {
    return manager.find(FlowVersionEntity, {
      select: { id: true, createdBy: true, createdAt: true },
      where: { workspaceId, path },
      order: { id: 'DESC' },
    });
  }
}

function jsonOrNull(value: Record<string, unknown> | null): string | null {
  return value === null ? null : JSON.stringify(value);
}
