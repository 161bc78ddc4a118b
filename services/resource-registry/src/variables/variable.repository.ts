import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { findItemForUpdate } from '../items/item-row.lock.js';
import { VariableEntity } from './variable.entity.js';

export type VariableContent = Pick<VariableEntity, 'isSecret' | 'value' | 'keyId' | 'ciphertext'>;

/** A variable's content and the item it belongs to (a secret is bound to its workspace and path). */
export type StoredVariableContent = VariableContent & Pick<VariableEntity, 'workspaceId' | 'path'>;

@Injectable()
export class VariableRepository {
  /** Raw SQL, as `ResourceRepository.find`: on the interpolation hot path (bench/registry). */
  async find(manager: EntityManager, workspaceId: string, path: string): Promise<VariableEntity | null> {
    const [row] = await manager.query<VariableEntity[]>(
      `SELECT "workspace_id" AS "workspaceId", "path", "is_secret" AS "isSecret", "value", "key_id" AS "keyId", "ciphertext",
              "description", "created_by" AS "createdBy", "created_at" AS "createdAt", "edited_by" AS "editedBy", "edited_at" AS "editedAt"
         FROM "variable" WHERE "workspace_id" = $1 AND "path" = $2`,
      [workspaceId, path],
    );
    return row ? Object.assign(new VariableEntity(), row) : null;
  }

  /** Content only (what interpolation needs): no description, no stamps. */
  async findContent(
    manager: EntityManager,
    workspaceId: string,
    path: string,
  ): Promise<StoredVariableContent | null> {
    const [row] = await manager.query<StoredVariableContent[]>(
      `SELECT "workspace_id" AS "workspaceId", "path", "is_secret" AS "isSecret", "value", "key_id" AS "keyId", "ciphertext"
         FROM "variable" WHERE "workspace_id" = $1 AND "path" = $2`,
      [workspaceId, path],
    );
    return row ?? null;
  }

  findForUpdate(manager: EntityManager, workspaceId: string, path: string): Promise<VariableEntity | null> {
    return findItemForUpdate(manager, VariableEntity, workspaceId, path);
  }

  exists(manager: EntityManager, workspaceId: string, path: string): Promise<boolean> {
    return manager.existsBy(VariableEntity, { workspaceId, path });
  }

  async insert(
    manager: EntityManager,
    row: Omit<VariableEntity, 'createdAt' | 'editedAt'>,
  ): Promise<VariableEntity> {
    const [stamps] = await manager.query<Array<{ created_at: Date; edited_at: Date }>>(
      `INSERT INTO "variable" ("workspace_id", "path", "is_secret", "value", "key_id", "ciphertext", "description", "created_by", "edited_by")
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING "created_at", "edited_at"`,
      [
        row.workspaceId,
        row.path,
        row.isSecret,
        row.value,
        row.keyId,
        row.ciphertext,
        row.description,
        row.createdBy,
        row.editedBy,
      ],
    );
    return Object.assign(new VariableEntity(), row, {
      createdAt: stamps.created_at,
      editedAt: stamps.edited_at,
    });
  }

  async update(
    manager: EntityManager,
    before: VariableEntity,
    after: Omit<VariableEntity, 'editedAt'>,
  ): Promise<Date> {
    const [rows] = await manager.query<[Array<{ edited_at: Date }>, number]>(
      `UPDATE "variable" SET "path" = $3, "is_secret" = $4, "value" = $5, "key_id" = $6, "ciphertext" = $7,
              "description" = $8, "edited_by" = $9, "edited_at" = now()
       WHERE "workspace_id" = $1 AND "path" = $2 RETURNING "edited_at"`,
      [
        before.workspaceId,
        before.path,
        after.path,
        after.isSecret,
        after.value,
        after.keyId,
        after.ciphertext,
        after.description,
        after.editedBy,
      ],
    );
    return rows[0].edited_at;
  }

  async delete(manager: EntityManager, workspaceId: string, path: string): Promise<void> {
    await manager.delete(VariableEntity, { workspaceId, path });
  }

  /** Every variable under the prefix; a secret's ciphertext is not even read. */
  list(
    manager: EntityManager,
    workspaceId: string,
    pathPrefix: string | undefined,
  ): Promise<VariableEntity[]> {
    const query = manager
      .createQueryBuilder(VariableEntity, 'v')
      .select([
        'v.workspaceId',
        'v.path',
        'v.isSecret',
        'v.value',
        'v.description',
        'v.createdBy',
        'v.createdAt',
        'v.editedBy',
        'v.editedAt',
      ])
      .where('v.workspaceId = :workspaceId', { workspaceId })
      .orderBy('v.path', 'ASC');
    if (pathPrefix) query.andWhere('starts_with(v.path, :prefix)', { prefix: pathPrefix });
    return query.getMany();
  }
}
