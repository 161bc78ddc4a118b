import { rowsOf } from '@flowmesh/persistence';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { OwnerKey } from '../map/lock-record.repository.js';

export interface ToolRevalidation {
  readonly nodeId: string;
  readonly becauseOf: string;
  readonly status: 'ok' | 'mismatch';
  readonly errorLog: string | null;
  readonly checkedAt: Date;
}

/** `tool_revalidation` rows: the last check of each of an owner's tools run by path. */
@Injectable()
export class ToolRevalidationRepository {
  constructor(private readonly dataSource: DataSource) {}

  async save(
    owner: OwnerKey,
    check: Pick<ToolRevalidation, 'nodeId' | 'becauseOf' | 'status' | 'errorLog'>,
  ): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO tool_revalidation (workspace, owner_kind, owner_path, node_id, because_of, status, error_log)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (workspace, owner_kind, owner_path, node_id) DO UPDATE SET
         because_of = EXCLUDED.because_of, status = EXCLUDED.status, error_log = EXCLUDED.error_log, checked_at = now()`,
      [owner.workspace, owner.kind, owner.path, check.nodeId, check.becauseOf, check.status, check.errorLog],
    );
  }

  async of(owner: OwnerKey): Promise<ToolRevalidation[]> {
    return rowsOf<ToolRevalidation>(
      await this.dataSource.query(
        `SELECT node_id AS "nodeId", because_of AS "becauseOf", status, error_log AS "errorLog", checked_at AS "checkedAt"
         FROM tool_revalidation WHERE workspace = $1 AND owner_kind = $2 AND owner_path = $3 ORDER BY node_id`,
        [owner.workspace, owner.kind, owner.path],
      ),
    );
  }
}
