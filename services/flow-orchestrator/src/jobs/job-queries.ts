import {
  MeshError,
  type Job,
  type JobLogsReply,
  type JobSummary,
  type ListJobsRequest,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { toJob, toJobSummary } from './job-row.mapper.js';
import type { JobRecord } from './job.record.js';
import { JobRepository } from './job.repository.js';

type ListFilter = Omit<ListJobsRequest, 'actor'>;

/** Reads of jobs for the run API (which decides who may see them): a job, lists, logs, a node's result. */
@Injectable()
export class JobQueries {
  constructor(private readonly jobs: JobRepository) {}

  /** The job when it exists in `workspace`; whether the caller may see it is not asked here. */
  async find(workspace: string, id: string): Promise<Job | undefined> {
    const record = await this.jobs.load(id);
    return record && record.workspace === workspace ? toJob(record) : undefined;
  }

  async list(filter: ListFilter): Promise<JobSummary[]> {
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
    const rows = await this.jobs.query<JobRecord>(
      `SELECT id, workspace, kind, parent_job, root_job, path, script_hash, flow_step_id, language, status,
              created_by, on_behalf_of, email, tag, priority, skipped, canceled_by, canceled_reason,
              created_at, scheduled_for, started_at, completed_at, duration_ms
       FROM job WHERE ${where.join(' AND ')}
       ORDER BY created_at DESC, id LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    return rows.map((row) =>
      toJobSummary({ ...row, priority: row.priority === null ? null : Number(row.priority) }),
    );
  }

  /** The job's logs from character `offset` on. */
  async logs(workspace: string, id: string, offset: number): Promise<Omit<JobLogsReply, 'completed'>> {
    const rows = await this.jobs.query<{ logs: string | null; workspace: string | null }>(
      `SELECT (SELECT workspace FROM job WHERE id = $1) AS workspace,
              (SELECT string_agg(chunk, '' ORDER BY id) FROM job_log WHERE job_id = $1) AS logs`,
      [id],
    );
    const row = rows[0];
    if (!row?.workspace || row.workspace !== workspace)
      throw new MeshError('NOT_FOUND', `job ${id} not found`, { id });
    const all = row.logs ?? '';
    return { logs: all.slice(offset), next_offset: all.length };
  }

  /**
   * The result of module `nodeId` in the run of `flowJobId`: a module of that flow (a loop's or
   * branchall's as the list of its children's), or the latest job that ran that step anywhere
   * below it. NOT_FOUND while it has none.
   */
  async resultByNode(workspace: string, flowJobId: string, nodeId: string): Promise<unknown> {
    const flow = await this.jobs.load(flowJobId);
    if (!flow || flow.workspace !== workspace) throw new MeshError('NOT_FOUND', `job ${flowJobId} not found`);
    const status = flow.flow_status?.modules.find((module) => module.id === nodeId);
    if (status && (status.type === 'Success' || status.type === 'Failure')) {
      if (status.flow_jobs && !status.job) {
        return (await this.jobs.results(status.flow_jobs)).map((row) => row?.result ?? null);
      }
      if (status.job) return (await this.jobs.results([status.job]))[0]?.result ?? null;
      return [];
    }
    const latest = await this.jobs.latestStepResult(flow.root_job, nodeId);
    if (latest.found) return latest.result;
    throw new MeshError('NOT_FOUND', `no result yet for node ${nodeId} of job ${flowJobId}`, {
      id: flowJobId,
      node_id: nodeId,
    });
  }
}
