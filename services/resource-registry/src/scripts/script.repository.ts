import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { findItemForUpdate } from '../items/item-row.lock.js';
import { ScriptVersionEntity } from './script-version.entity.js';
import { ScriptEntity } from './script.entity.js';

/** A script path joined with its current version's language, for lists. */
export interface ListedScriptRow {
  readonly script: ScriptEntity;
  readonly current: Pick<ScriptVersionEntity, 'hash' | 'parentHash' | 'language' | 'createdBy' | 'createdAt'>;
}

@Injectable()
export class ScriptRepository {
  findScript(manager: EntityManager, workspaceId: string, path: string): Promise<ScriptEntity | null> {
    return manager.findOneBy(ScriptEntity, { workspaceId, path });
  }

  findScriptForUpdate(
    manager: EntityManager,
    workspaceId: string,
    path: string,
  ): Promise<ScriptEntity | null> {
    return findItemForUpdate(manager, ScriptEntity, workspaceId, path);
  }

  findVersion(
    manager: EntityManager,
    workspaceId: string,
    hash: string,
  ): Promise<ScriptVersionEntity | null> {
    return manager.findOneBy(ScriptVersionEntity, { workspaceId, hash });
  }

  /** Writes the version unless that hash already exists; true when it was written. */
  async insertVersion(manager: EntityManager, row: Omit<ScriptVersionEntity, 'createdAt'>): Promise<boolean> {
    const inserted = await manager.query<unknown[]>(
      `INSERT INTO "script_version" ("workspace_id", "hash", "path", "parent_hash", "language", "content", "lock", "schema", "created_by")
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9)
       ON CONFLICT ("workspace_id", "hash") DO NOTHING RETURNING 1`,
      [
        row.workspaceId,
        row.hash,
        row.path,
        row.parentHash,
        row.language,
        row.content,
        row.lock,
        row.schema === null ? null : JSON.stringify(row.schema),
        row.createdBy,
      ],
    );
    return inserted.length > 0;
  }

  async insertScript(
    manager: EntityManager,
    row: Omit<ScriptEntity, 'createdAt' | 'editedAt'>,
  ): Promise<ScriptEntity> {
    const [stamps] = await manager.query<Array<{ created_at: Date; edited_at: Date }>>(
      `INSERT INTO "script" ("workspace_id", "path", "current_hash", "summary", "description", "created_by", "edited_by")
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING "created_at", "edited_at"`,
      [row.workspaceId, row.path, row.currentHash, row.summary, row.description, row.createdBy, row.editedBy],
    );
    return Object.assign(new ScriptEntity(), row, {
      createdAt: stamps.created_at,
      editedAt: stamps.edited_at,
    });
  }

  async updateScript(
    manager: EntityManager,
    row: Pick<ScriptEntity, 'workspaceId' | 'path' | 'currentHash' | 'summary' | 'description' | 'editedBy'>,
  ): Promise<Date> {
    const [rows] = await manager.query<[Array<{ edited_at: Date }>, number]>(
      `UPDATE "script" SET "current_hash" = $3, "summary" = $4, "description" = $5, "edited_by" = $6, "edited_at" = now()
       WHERE "workspace_id" = $1 AND "path" = $2 RETURNING "edited_at"`,
      [row.workspaceId, row.path, row.currentHash, row.summary, row.description, row.editedBy],
    );
    return rows[0].edited_at;
  }

  /** The path and every version of it. */
  async deleteScript(manager: EntityManager, workspaceId: string, path: string): Promise<void> {
    await manager.delete(ScriptEntity, { workspaceId, path });
    await manager.delete(ScriptVersionEntity, { workspaceId, path });
  }

  async list(
    manager: EntityManager,
    workspaceId: string,
    pathPrefix: string | undefined,
  ): Promise<ListedScriptRow[]> {
    const query = manager
      .createQueryBuilder(ScriptEntity, 's')
      .innerJoin(ScriptVersionEntity, 'v', 'v.workspaceId = s.workspaceId AND v.hash = s.currentHash')
      .select('s')
      .addSelect(['v.hash', 'v.parentHash', 'v.language', 'v.createdBy', 'v.createdAt'])
      .where('s.workspaceId = :workspaceId', { workspaceId })
      .orderBy('s.path', 'ASC');
    if (pathPrefix) query.andWhere('starts_with(s.path, :prefix)', { prefix: pathPrefix });
    const { entities, raw } = await query.getRawAndEntities();
    return entities.map((script, index) => {
      const row = raw[index] as Record<string, unknown>;
      return {
        script,
        current: {
          hash: row.v_hash as string,
          parentHash: (row.v_parent_hash as string | null) ?? null,
          language: row.v_language as string,
          createdBy: row.v_created_by as string,
          createdAt: row.v_created_at as Date,
        },
      };
    });
  }

  listVersions(manager: EntityManager, workspaceId: string, path: string): Promise<ScriptVersionEntity[]> {
    return manager.find(ScriptVersionEntity, {
      select: { hash: true, parentHash: true, createdBy: true, createdAt: true },
      where: { workspaceId, path },
      order: { createdAt: 'DESC' },
    });
  }
}
