import { RESOURCE_VERSIONS_KEPT } from '@flowmesh/contracts';
import { InjectRepository } from '@flowmesh/persistence';
import { Injectable } from '@nestjs/common';
import type { EntityManager, Repository } from 'typeorm';
import { ResourceVersionEntity } from './resource-version.entity.js';

export interface NewResourceVersion {
  readonly workspace: string;
  readonly path: string;
  readonly resourceType: string;
  readonly value: unknown;
  readonly description: string | null;
  readonly createdBy: string;
  readonly restoredFrom?: number;
}

@Injectable()
export class ResourceVersionRepository {
  constructor(
    @InjectRepository(ResourceVersionEntity) private readonly versions: Repository<ResourceVersionEntity>,
  ) {}

  /**
   * Appends the next version and drops those beyond the newest `RESOURCE_VERSIONS_KEPT`, in one
   * statement on the write's own transaction. Concurrent writes of one resource are serialized
   * by the lock the resource write already holds on its row.
   */
  async append(manager: EntityManager, version: NewResourceVersion): Promise<number> {
    const rows: Array<{ version: number }> = await manager.query(
      `WITH next AS (
         SELECT COALESCE(MAX("version"), 0) + 1 AS "version" FROM "resource_version"
         WHERE "workspace_id" = $1 AND "path" = $2
       ), inserted AS (
         INSERT INTO "resource_version"
           ("workspace_id", "path", "version", "resource_type", "value", "description", "created_by", "restored_from")
         SELECT $1, $2, next."version", $3, $4::jsonb, $5, $6, $7 FROM next
         RETURNING "version"
       ), dropped AS (
         DELETE FROM "resource_version" WHERE "id" IN (
           SELECT "id" FROM "resource_version" WHERE "workspace_id" = $1 AND "path" = $2
           ORDER BY "version" DESC OFFSET $8
         )
       )
       SELECT "version" FROM inserted`,
      [
        version.workspace,
        version.path,
        version.resourceType,
        JSON.stringify(version.value),
        version.description,
        version.createdBy,
        version.restoredFrom ?? null,
        // The statement sees the rows before its own insert: keep one fewer of them.
        RESOURCE_VERSIONS_KEPT - 1,
      ],
    );
    const appended = rows[0];
    if (!appended) throw new Error(`no version appended for ${version.workspace}/${version.path}`);
    return appended.version;
  }

  /** Newest first, without values. */
  list(workspace: string, path: string): Promise<ResourceVersionEntity[]> {
    return this.versions.find({
      select: {
        version: true,
        path: true,
        resourceType: true,
        description: true,
        createdBy: true,
        createdAt: true,
        restoredFrom: true,
      },
      where: { workspaceId: workspace, path },
      order: { version: 'DESC' },
    });
  }

  find(workspace: string, path: string, version: number): Promise<ResourceVersionEntity | null> {
    return this.versions.findOneBy({ workspaceId: workspace, path, version });
  }

  /** The newest version, as the transaction of `manager` sees it. */
  newest(manager: EntityManager, workspace: string, path: string): Promise<ResourceVersionEntity | null> {
    return manager.findOne(ResourceVersionEntity, {
      where: { workspaceId: workspace, path },
      order: { version: 'DESC' },
    });
  }

  /** Drops every version but the newest; returns how many went and which one stayed. */
  async clearPast(
    manager: EntityManager,
    workspace: string,
    path: string,
  ): Promise<{ removed: number; kept: number | null }> {
    const [row] = await manager.query<Array<{ removed: number; kept: number | null }>>(
      `WITH newest AS (
         SELECT MAX("version") AS "version" FROM "resource_version" WHERE "workspace_id" = $1 AND "path" = $2
       ), dropped AS (
         DELETE FROM "resource_version"
         WHERE "workspace_id" = $1 AND "path" = $2 AND "version" < (SELECT "version" FROM newest)
         RETURNING 1
       )
       SELECT (SELECT count(*)::int FROM dropped) AS "removed", (SELECT "version" FROM newest) AS "kept"`,
      [workspace, path],
    );
    return { removed: row?.removed ?? 0, kept: row?.kept ?? null };
  }
}
