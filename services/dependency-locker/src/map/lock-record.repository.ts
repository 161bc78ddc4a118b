import { createHash } from 'node:crypto';
import type { DeployedOwner, LockOwnerKind } from '@flowmesh/contracts';
import { rowsOf } from '@flowmesh/persistence';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

export interface OwnerKey {
  readonly workspace: string;
  readonly kind: LockOwnerKind;
  readonly path: string;
}

export interface LockRecord {
  readonly nodeId: string;
  readonly ownerVersion: string;
  readonly language: string;
  readonly content: string;
  readonly codeSha256: string;
  readonly lock: string | null;
  readonly lockSha256: string | null;
  readonly status: 'ok' | 'error' | 'pending' | 'unlocked';
  readonly errorLog: string | null;
  readonly lockedAt: Date | null;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

const COLUMNS = `node_id AS "nodeId", owner_version AS "ownerVersion", language, content, code_sha256 AS "codeSha256",
  lock, lock_sha256 AS "lockSha256", status, error_log AS "errorLog", locked_at AS "lockedAt"`;

/**
 * `lock_record`: each unit of code as last deployed, with its lock. The lock a deploy replaces is
 * kept until a new one is made (never blank while a lock runs), and a failed lock keeps it too,
 * with the resolver's error log beside it.
 */
@Injectable()
export class LockRecordRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Records what was deployed: each unit pending its lock, units gone removed. */
  async recordDeploy(manager: EntityManager, owner: DeployedOwner): Promise<void> {
    const key = { workspace: owner.workspace, kind: owner.owner_kind, path: owner.path };
    if (owner.previous_path) await this.removeOwner(manager, { ...key, path: owner.previous_path });
    await manager.query(
      `DELETE FROM lock_record WHERE workspace = $1 AND owner_kind = $2 AND owner_path = $3 AND NOT (node_id = ANY($4))`,
      [key.workspace, key.kind, key.path, owner.units.map((u) => u.node_id)],
    );
    for (const unit of owner.units) {
      const given = unit.lock && unit.lock !== '' ? unit.lock : null;
      await manager.query(
        `INSERT INTO lock_record (workspace, owner_kind, owner_path, node_id, owner_version, language, content, code_sha256, lock, lock_sha256, status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending')
         ON CONFLICT (workspace, owner_kind, owner_path, node_id) DO UPDATE SET
           owner_version = EXCLUDED.owner_version, language = EXCLUDED.language, content = EXCLUDED.content,
           code_sha256 = EXCLUDED.code_sha256, status = 'pending', updated_at = now(),
           lock = COALESCE(lock_record.lock, EXCLUDED.lock), lock_sha256 = COALESCE(lock_record.lock_sha256, EXCLUDED.lock_sha256)`,
        [
          key.workspace,
          key.kind,
          key.path,
          unit.node_id,
          owner.version,
          unit.language,
          unit.content,
          sha256(unit.content),
          given,
          given === null ? null : sha256(given),
        ],
      );
    }
  }

  async removeOwner(manager: EntityManager, key: OwnerKey): Promise<void> {
    await manager.query(
      `DELETE FROM lock_record WHERE workspace = $1 AND owner_kind = $2 AND owner_path = $3`,
      [key.workspace, key.kind, key.path],
    );
  }

  async units(key: OwnerKey): Promise<LockRecord[]> {
    return rowsOf<LockRecord>(
      await this.dataSource.query(
        `SELECT ${COLUMNS} FROM lock_record WHERE workspace = $1 AND owner_kind = $2 AND owner_path = $3 ORDER BY node_id`,
        [key.workspace, key.kind, key.path],
      ),
    );
  }

  /** A workspace script's code as last deployed, for the imports that name it. */
  async script(workspace: string, path: string): Promise<LockRecord | undefined> {
    return (await this.units({ workspace, kind: 'script', path })).find((r) => r.nodeId === '');
  }

  /** The current lock hash of each of these scripts (absent: not locked). */
  async scriptLockHashes(workspace: string, paths: readonly string[]): Promise<Map<string, string>> {
    const rows = rowsOf<{ path: string; sha: string }>(
      await this.dataSource.query(
        `SELECT owner_path AS path, lock_sha256 AS sha FROM lock_record
         WHERE workspace = $1 AND owner_kind = 'script' AND node_id = '' AND owner_path = ANY($2) AND lock_sha256 IS NOT NULL`,
        [workspace, paths],
      ),
    );
    return new Map(rows.map((r) => [r.path, r.sha]));
  }

  /** Keeps a new lock, unless the unit was deployed again meanwhile (its code or version changed). */
  async saveLock(
    key: OwnerKey,
    unit: Pick<LockRecord, 'nodeId' | 'codeSha256' | 'ownerVersion'>,
    lock: string,
  ): Promise<boolean> {
    const rows = rowsOf<unknown>(
      await this.dataSource.query(
        `UPDATE lock_record SET lock = $7, lock_sha256 = $8, status = 'ok', error_log = NULL, locked_at = now(), updated_at = now()
         WHERE workspace = $1 AND owner_kind = $2 AND owner_path = $3 AND node_id = $4 AND code_sha256 = $5 AND owner_version = $6
         RETURNING 1`,
        [
          key.workspace,
          key.kind,
          key.path,
          unit.nodeId,
          unit.codeSha256,
          unit.ownerVersion,
          lock,
          sha256(lock),
        ],
      ),
    );
    return rows.length > 0;
  }

  /** A failed lock: the previous lock stays, the error log is kept beside it. */
  async saveFailure(
    key: OwnerKey,
    unit: Pick<LockRecord, 'nodeId' | 'codeSha256' | 'ownerVersion'>,
    errorLog: string,
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE lock_record SET status = 'error', error_log = $7, updated_at = now()
       WHERE workspace = $1 AND owner_kind = $2 AND owner_path = $3 AND node_id = $4 AND code_sha256 = $5 AND owner_version = $6`,
      [
        key.workspace,
        key.kind,
        key.path,
        unit.nodeId,
        unit.codeSha256,
        unit.ownerVersion,
        errorLog.slice(0, 16_000),
      ],
    );
  }
}
