import type { EdgeKind, LockOwnerKind } from '@flowmesh/contracts';
import { rowsOf } from '@flowmesh/persistence';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { OwnerKey } from '../map/lock-record.repository.js';
import { ownerKey, type CascadeTarget } from './cascade-planner.js';

export interface LockJob {
  readonly id: string;
  readonly workspace: string;
  readonly ownerKind: LockOwnerKind;
  readonly ownerPath: string;
  /** `lock`: a deploy, every unit; `relock`: a cascade, `nodeIds`; `revalidate`: a cascade, no lock. */
  readonly action: 'lock' | 'relock' | 'revalidate';
  readonly cause: 'deploy' | 'cascade';
  readonly nodeIds: string[] | null;
  readonly cascadeRoot: string | null;
  readonly becauseOf: string | null;
  readonly edgeKind: EdgeKind | null;
  readonly depth: number;
  readonly alreadyVisited: string[];
}

const COLUMNS = `id, workspace, owner_kind AS "ownerKind", owner_path AS "ownerPath", action, cause, node_ids AS "nodeIds",
  cascade_root AS "cascadeRoot", because_of AS "becauseOf", edge_kind AS "edgeKind", depth, already_visited AS "alreadyVisited"`;

/** Times a job is taken again after the replica holding it stopped answering. */
const MAX_ATTEMPTS = 3;

/** Debounce keys: per owner kind and path (the kind is part of it, Windmill PR #8567), per cause. */
export const deployKey = (o: OwnerKey): string => `${o.workspace}:${o.kind}:${o.path}:deploy`;
export const dependencyKey = (o: OwnerKey): string => `${o.workspace}:${o.kind}:${o.path}:dependency`;

/**
 * `lock_job`: the queue of locks. A deploy's job is due at once; a cascade's waits the debounce
 * time, and a second trigger for the same owner while it waits joins it (node ids merged, the
 * wait extended) instead of queuing another. A user deploy supersedes a queued cascade job of its
 * owner. Jobs of one cascade run in depth order, so a dependent is locked after what it imports.
 */
@Injectable()
export class LockJobRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Queues the lock of a deploy and supersedes the cascade jobs it makes pointless (their ids). */
  async enqueueDeploy(manager: EntityManager, owner: OwnerKey): Promise<string[]> {
    const superseded = rowsOf<{ id: string }>(
      await manager.query(
        `UPDATE lock_job SET status = 'superseded', finished_at = now(), outcome = 'a deploy of the owner landed'
         WHERE status = 'queued' AND cause = 'cascade' AND workspace = $1 AND owner_kind = $2 AND owner_path = $3 RETURNING id`,
        [owner.workspace, owner.kind, owner.path],
      ),
    );
    await manager.query(
      `INSERT INTO lock_job (workspace, owner_kind, owner_path, debounce_key, action, cause, not_before)
       VALUES ($1, $2, $3, $4, 'lock', 'deploy', now())
       ON CONFLICT (debounce_key) WHERE status = 'queued' DO NOTHING`,
      [owner.workspace, owner.kind, owner.path, deployKey(owner)],
    );
    return superseded.map((r) => r.id);
  }

  /** Drops what is queued for an owner that was deleted. */
  async dropQueued(manager: EntityManager, owner: OwnerKey): Promise<void> {
    await manager.query(
      `UPDATE lock_job SET status = 'superseded', finished_at = now(), outcome = 'the owner was deleted'
       WHERE status = 'queued' AND workspace = $1 AND owner_kind = $2 AND owner_path = $3`,
      [owner.workspace, owner.kind, owner.path],
    );
  }

  /**
   * Queues a cascade's targets (debounced, merged with a queued job of the same key). A target
   * whose own deploy is queued is left to it.
   */
  async enqueueCascade(
    workspace: string,
    root: string,
    targets: readonly CascadeTarget[],
    alreadyVisited: readonly string[],
    debounceMs: number,
  ): Promise<void> {
    const visited = [...new Set([...alreadyVisited, root, ...targets.map((t) => ownerKey(t.kind, t.path))])];
    await this.dataSource.transaction(async (manager) => {
      for (const target of targets) {
        const owner = { workspace, kind: target.kind, path: target.path };
        await manager.query(
          `INSERT INTO lock_job (workspace, owner_kind, owner_path, debounce_key, action, cause, node_ids, cascade_root,
             because_of, edge_kind, depth, already_visited, not_before)
           SELECT $1, $2, $3, $4, $5, 'cascade', $6, $7, $8, $9, $10, $11, now() + make_interval(secs => $12::double precision / 1000)
           WHERE NOT EXISTS (SELECT 1 FROM lock_job WHERE debounce_key = $13 AND status = 'queued')
           ON CONFLICT (debounce_key) WHERE status = 'queued' DO UPDATE SET
             node_ids = ARRAY(SELECT DISTINCT unnest(lock_job.node_ids || EXCLUDED.node_ids) ORDER BY 1),
             action = CASE WHEN lock_job.action = 'relock' OR EXCLUDED.action = 'relock' THEN 'relock' ELSE 'revalidate' END,
             depth = GREATEST(lock_job.depth, EXCLUDED.depth),
             already_visited = ARRAY(SELECT DISTINCT unnest(lock_job.already_visited || EXCLUDED.already_visited)),
             not_before = GREATEST(lock_job.not_before, EXCLUDED.not_before)`,
          [
            workspace,
            target.kind,
            target.path,
            dependencyKey(owner),
            target.action,
            target.nodeIds,
            root,
            target.becauseOf,
            target.edgeKind,
            target.depth,
            visited,
            debounceMs,
            deployKey(owner),
          ],
        );
      }
    });
  }

  /**
   * Takes the next due job, if any: one no replica holds, whose cascade has nothing shallower
   * still to run. A job held longer than `staleMs` (its replica died) is taken again.
   */
  async claim(staleMs: number): Promise<LockJob | undefined> {
    return this.dataSource.transaction(async (manager) => {
      // A job that was held by replicas that died MAX_ATTEMPTS times is given up, not taken again.
      await manager.query(
        `UPDATE lock_job SET status = 'failed', finished_at = now(), outcome = 'its replica stopped answering, ' || attempts || ' times'
         WHERE status = 'running' AND attempts >= $2 AND claimed_at < now() - make_interval(secs => $1::double precision / 1000)`,
        [staleMs, MAX_ATTEMPTS],
      );
      await manager.query(
        `UPDATE lock_job SET status = 'queued' WHERE status = 'running' AND claimed_at < now() - make_interval(secs => $1::double precision / 1000)
         AND NOT EXISTS (SELECT 1 FROM lock_job q WHERE q.debounce_key = lock_job.debounce_key AND q.status = 'queued')`,
        [staleMs],
      );
      const [job] = rowsOf<LockJob>(
        await manager.query(
          `SELECT ${COLUMNS} FROM lock_job j
           WHERE status = 'queued' AND not_before <= now()
             AND NOT EXISTS (SELECT 1 FROM lock_job o WHERE j.cascade_root IS NOT NULL AND o.workspace = j.workspace
                             AND o.cascade_root = j.cascade_root AND o.depth < j.depth AND o.status IN ('queued', 'running'))
           ORDER BY not_before, depth, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
        ),
      );
      if (!job) return undefined;
      await manager.query(
        `UPDATE lock_job SET status = 'running', claimed_at = now(), attempts = attempts + 1 WHERE id = $1`,
        [job.id],
      );
      return { ...job, id: String(job.id) };
    });
  }

  async finish(
    id: string,
    status: 'done' | 'skipped' | 'superseded' | 'failed',
    outcome: string,
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE lock_job SET status = $2, outcome = $3, finished_at = now() WHERE id = $1`,
      [id, status, outcome.slice(0, 4_000)],
    );
  }

  /** Forgets jobs that ended more than `keepMs` ago. */
  async prune(keepMs: number): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM lock_job WHERE status NOT IN ('queued', 'running')
       AND finished_at < now() - make_interval(secs => $1::double precision / 1000)`,
      [keepMs],
    );
  }

  /** When the next queued job is due (ms from now), for the runner's wait. */
  async nextDueInMs(): Promise<number | undefined> {
    const [row] = rowsOf<{ ms: number | null }>(
      await this.dataSource.query(
        `SELECT (EXTRACT(EPOCH FROM (min(not_before) - now())) * 1000)::float8 AS ms FROM lock_job WHERE status = 'queued'`,
      ),
    );
    return row?.ms == null ? undefined : Math.max(0, row.ms);
  }
}
