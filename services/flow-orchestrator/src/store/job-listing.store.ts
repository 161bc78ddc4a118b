import type { ListJobsRequest } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { ConnectionLanes } from './connection-lanes.js';
import type { JobRecord } from './job.record.js';

/** Reads of many jobs at once: the run API's lists and logs, and the gauges' counts. */
@Injectable()
export class JobListingStore {
  constructor(private readonly lanes: ConnectionLanes) {}

  /** Suspended flows and AI steps by kind (the partial index `job_suspended` serves it). */
  parkedApprovals(): Promise<Array<{ kind: 'flow' | 'agent'; n: number }>> {
    return this.lanes.query<{ kind: 'flow' | 'agent'; n: number }>(PARKED_APPROVALS_SQL, []);
  }

  /** Jobs of a workspace as the run API lists them, newest first. */
  list(filter: Omit<ListJobsRequest, 'actor'>): Promise<JobRecord[]> {
    const where = ['workspace = $1'];
    const params: unknown[] = [filter.workspace];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (!filter.include_children && !filter.parent_job && !filter.root_job) where.push('parent_job IS NULL');
    if (filter.status?.length) add('status = ANY(?)', filter.status);
    if (filter.kind?.length) add('kind = ANY(?)', filter.kind);
    if (filter.path) add('path = ?', filter.path);
    if (filter.path_prefix) add(`path LIKE ? || '%'`, filter.path_prefix.replace(/[%_\\]/g, '\\$&'));
    if (filter.created_by) add('created_by = ?', filter.created_by);
    if (filter.parent_job) add('parent_job = ?', filter.parent_job);
    if (filter.root_job) add('root_job = ?', filter.root_job);
    if (filter.tag) add('tag = ?', filter.tag);
    if (filter.success === true) where.push(`status = 'completed'`);
    if (filter.success === false) where.push(`status IN ('failed','cancelled')`);
    if (filter.created_after) add('created_at > ?', filter.created_after);
    if (filter.created_before) add('created_at < ?', filter.created_before);
    params.push(filter.limit ?? 100, filter.offset ?? 0);
    return this.lanes.query<JobRecord>(
      `SELECT id, workspace, kind, parent_job, root_job, path, script_hash, flow_step_id, language, status,
              created_by, on_behalf_of, email, tag, priority, skipped, canceled_by, canceled_reason,
              created_at, scheduled_for, started_at, completed_at, duration_ms, trigger_kind, trigger_path
       FROM job WHERE ${where.join(' AND ')}
       ORDER BY created_at DESC, id LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
  }

  /** A job's whole log and its workspace (null for both when there is no such job). */
  async logsOf(id: string): Promise<{ logs: string | null; workspace: string | null } | undefined> {
    const rows = await this.lanes.query<{ logs: string | null; workspace: string | null }>(
      `SELECT (SELECT workspace FROM job WHERE id = $1) AS workspace,
              (SELECT string_agg(chunk, '' ORDER BY id) FROM job_log WHERE job_id = $1) AS logs`,
      [id],
    );
    return rows[0];
  }
}

/** Suspended flows and AI steps by kind (the partial index `job_suspended` serves it). */
export const PARKED_APPROVALS_SQL = `SELECT CASE WHEN kind = 'aiagent' THEN 'agent' ELSE 'flow' END AS kind, count(*)::int AS n
  FROM job WHERE status = 'suspended' AND kind IN ('aiagent', 'flow', 'flowpreview') GROUP BY 1`;
