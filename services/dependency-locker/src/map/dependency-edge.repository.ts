import type { EdgeKind } from '@flowmesh/contracts';
import { rowsOf } from '@flowmesh/persistence';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { DependencyEdge } from '../cascade/cascade-planner.js';
import type { OwnerKey } from './lock-record.repository.js';

const COLUMNS = `importer_kind AS "importerKind", importer_path AS "importerPath", importer_node_id AS "importerNodeId",
  edge_kind AS "edgeKind", imported_kind AS "importedKind", imported_path AS "importedPath",
  imported_lock_sha256 AS "importedLockSha256"`;

/** The part of an owner's edges one rewrite replaces: its references, or its nodes' imports. */
export type EdgeScope =
  { readonly kinds: 'refs' } | { readonly kinds: 'imports'; readonly nodeIds: readonly string[] };

const REF_KINDS: readonly EdgeKind[] = ['path_tool', 'path_step', 'linked_agent'];

function edgeKey(
  e: Pick<DependencyEdge, 'importerNodeId' | 'edgeKind' | 'importedKind' | 'importedPath'>,
): string {
  return `${e.importerNodeId}\u0000${e.edgeKind}\u0000${e.importedKind}\u0000${e.importedPath}`;
}

/**
 * `dependency_edge`: who depends on what. Each lock rewrites its owner's edges by difference
 * (Windmill's patch and dissolve): edges no longer there are removed, new ones added, and the
 * imported lock hash of the others brought up to date; untouched rows stay as they are.
 */
@Injectable()
export class DependencyEdgeRepository {
  constructor(private readonly dataSource: DataSource) {}

  async rewrite(
    owner: OwnerKey,
    scope: EdgeScope,
    wanted: ReadonlyArray<Omit<DependencyEdge, 'importerKind' | 'importerPath'>>,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ added: number; removed: number }> {
    const current = (await this.importsOf(owner, manager)).filter((e) =>
      scope.kinds === 'refs'
        ? REF_KINDS.includes(e.edgeKind)
        : e.edgeKind === 'relative_import' && scope.nodeIds.includes(e.importerNodeId),
    );
    const want = new Map(wanted.map((e) => [edgeKey(e), e]));
    const have = new Map(current.map((e) => [edgeKey(e), e]));
    const gone = current.filter((e) => !want.has(edgeKey(e)));
    for (const edge of gone)
      await manager.query(
        `DELETE FROM dependency_edge WHERE workspace = $1 AND importer_kind = $2 AND importer_path = $3
         AND importer_node_id = $4 AND edge_kind = $5 AND imported_kind = $6 AND imported_path = $7`,
        [
          owner.workspace,
          owner.kind,
          owner.path,
          edge.importerNodeId,
          edge.edgeKind,
          edge.importedKind,
          edge.importedPath,
        ],
      );
    let added = 0;
    for (const [key, edge] of want) {
      const known = have.get(key);
      if (known && known.importedLockSha256 === edge.importedLockSha256) continue;
      if (!known) added++;
      await manager.query(
        `INSERT INTO dependency_edge (workspace, importer_kind, importer_path, importer_node_id, edge_kind, imported_kind, imported_path, imported_lock_sha256)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (workspace, importer_kind, importer_path, importer_node_id, edge_kind, imported_kind, imported_path)
         DO UPDATE SET imported_lock_sha256 = EXCLUDED.imported_lock_sha256`,
        [
          owner.workspace,
          owner.kind,
          owner.path,
          edge.importerNodeId,
          edge.edgeKind,
          edge.importedKind,
          edge.importedPath,
          edge.importedLockSha256,
        ],
      );
    }
    return { added, removed: gone.length };
  }

  async importsOf(
    owner: OwnerKey,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<DependencyEdge[]> {
    return rowsOf<DependencyEdge>(
      await manager.query(
        `SELECT ${COLUMNS} FROM dependency_edge WHERE workspace = $1 AND importer_kind = $2 AND importer_path = $3
         ORDER BY importer_node_id, edge_kind, imported_kind, imported_path`,
        [owner.workspace, owner.kind, owner.path],
      ),
    );
  }

  /** Every edge of a workspace, for the cascade planner. */
  async ofWorkspace(workspace: string): Promise<DependencyEdge[]> {
    return rowsOf<DependencyEdge>(
      await this.dataSource.query(`SELECT ${COLUMNS} FROM dependency_edge WHERE workspace = $1`, [workspace]),
    );
  }

  async removeImporter(manager: EntityManager, owner: OwnerKey): Promise<void> {
    await manager.query(
      `DELETE FROM dependency_edge WHERE workspace = $1 AND importer_kind = $2 AND importer_path = $3`,
      [owner.workspace, owner.kind, owner.path],
    );
  }
}
