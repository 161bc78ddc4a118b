import type { MemoryLockHolder } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { MemoryRef } from '../memory/memory.types.js';

/** A ticket for a memory, as its memory's queue holds it. */
export interface MemoryTicket extends MemoryLockHolder {
  readonly seq: bigint;
  readonly held: boolean;
}

interface RawTicket {
  job_id: string;
  root_job: string;
  seq: string;
  held: boolean;
}

const KEY = `workspace_id = $1 AND memory_id = $2 AND step_id = $3`;

/** `ai_agent_memory_lock` rows: the queue of tickets of each memory (memory id, step). */
@Injectable()
export class MemoryLockRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Runs `work` on the memory's queue, alone: an advisory lock on the memory serializes every ask,
   * and the tickets whose lease ran out are dropped first.
   */
  async withQueue<T>(ref: MemoryRef, work: (queue: MemoryQueue) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      const key = [ref.workspace, ref.memoryId, ref.stepId];
      await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [key.join('|')]);
      await manager.query(`DELETE FROM ai_agent_memory_lock WHERE ${KEY} AND expires_at < now()`, key);
      const rows: RawTicket[] = await manager.query(
        `SELECT job_id, root_job, seq, held FROM ai_agent_memory_lock WHERE ${KEY} ORDER BY seq`,
        key,
      );
      return work(new MemoryQueue(manager, key, rows.map(toTicket)));
    });
  }

  /** Extends the tickets of these steps; the steps that still had one. */
  async renew(jobIds: readonly string[], leaseMs: number): Promise<string[]> {
    if (jobIds.length === 0) return [];
    const rows: Array<{ job_id: string }> = await this.dataSource.query(
      `UPDATE ai_agent_memory_lock SET expires_at = now() + $2 * interval '1 millisecond'
        WHERE job_id = ANY($1::uuid[]) RETURNING job_id`,
      [jobIds, leaseMs],
    );
    return [...new Set(rows.map((row) => row.job_id))];
  }

  async release(jobIds: readonly string[]): Promise<number> {
    if (jobIds.length === 0) return 0;
    const rows: unknown[] = await this.dataSource.query(
      `DELETE FROM ai_agent_memory_lock WHERE job_id = ANY($1::uuid[]) RETURNING job_id`,
      [jobIds],
    );
    return rows.length;
  }

  /** Whether this step holds the memory now (a ticket whose lease ran out still does until another asks). */
  async holds(ref: MemoryRef, jobId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM ai_agent_memory_lock WHERE ${KEY} AND job_id = $4 AND held`,
      [ref.workspace, ref.memoryId, ref.stepId, jobId],
    );
    return rows.length > 0;
  }
}

/** The tickets of one memory, inside the transaction that serializes asks on it. */
export class MemoryQueue {
  constructor(
    private readonly manager: EntityManager,
    private readonly key: readonly string[],
    /** Oldest first. */
    readonly tickets: readonly MemoryTicket[],
  ) {}

  async add(holder: MemoryLockHolder, leaseMs: number): Promise<MemoryTicket> {
    const rows: Array<{ seq: string }> = await this.manager.query(
      `INSERT INTO ai_agent_memory_lock (workspace_id, memory_id, step_id, job_id, root_job, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + $6 * interval '1 millisecond') RETURNING seq`,
      [...this.key, holder.jobId, holder.rootJob, leaseMs],
    );
    return { ...holder, seq: BigInt(rows[0].seq), held: false };
  }

  async renew(jobId: string, leaseMs: number): Promise<void> {
    await this.manager.query(
      `UPDATE ai_agent_memory_lock SET expires_at = now() + $5 * interval '1 millisecond' WHERE ${KEY} AND job_id = $4`,
      [...this.key, jobId, leaseMs],
    );
  }

  async hold(jobId: string): Promise<void> {
    await this.manager.query(`UPDATE ai_agent_memory_lock SET held = true WHERE ${KEY} AND job_id = $4`, [
      ...this.key,
      jobId,
    ]);
  }
}

function toTicket(row: RawTicket): MemoryTicket {
  return { jobId: row.job_id, rootJob: row.root_job, seq: BigInt(row.seq), held: row.held };
}
