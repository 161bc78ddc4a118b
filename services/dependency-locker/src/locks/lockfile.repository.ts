import type { TypescriptLock } from '@flowmesh/contracts';
import { rowsOf } from '@flowmesh/persistence';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** `lockfile` rows: a lock kept by the key of the requirements it was resolved for. */
@Injectable()
export class LockfileRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The kept lock and when it was resolved. */
  async find(requirementsKey: string): Promise<{ lock: TypescriptLock; resolvedAt: Date } | undefined> {
    const rows = rowsOf<{
      hash: string;
      requirements: TypescriptLock['requirements'];
      lockfile: TypescriptLock['lockfile'];
      created_at: Date;
    }>(
      await this.dataSource.query(
        `SELECT hash, requirements, lockfile, created_at FROM lockfile WHERE requirements_key = $1`,
        [requirementsKey],
      ),
    );
    const row = rows[0];
    return row
      ? {
          lock: { hash: row.hash, requirements: row.requirements, lockfile: row.lockfile },
          resolvedAt: new Date(row.created_at),
        }
      : undefined;
  }

  /** A lock resolved again replaces the kept one. */
  async replace(requirementsKey: string, lock: TypescriptLock): Promise<TypescriptLock> {
    await this.dataSource.query(
      `UPDATE lockfile SET hash = $2, lockfile = $3::jsonb, created_at = now() WHERE requirements_key = $1`,
      [requirementsKey, lock.hash, JSON.stringify(lock.lockfile)],
    );
    return lock;
  }

  /** Keeps the first lock stored for these requirements (another replica may have raced us) and answers it. */
  async keep(requirementsKey: string, lock: TypescriptLock): Promise<TypescriptLock> {
    await this.dataSource.query(
      `INSERT INTO lockfile (requirements_key, language, hash, requirements, lockfile)
       VALUES ($1, 'typescript', $2, $3::jsonb, $4::jsonb) ON CONFLICT (requirements_key) DO NOTHING`,
      [requirementsKey, lock.hash, JSON.stringify(lock.requirements), JSON.stringify(lock.lockfile)],
    );
    return (await this.find(requirementsKey))?.lock ?? lock;
  }
}
