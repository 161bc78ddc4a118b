import {
  MeshError,
  type Job,
  type JobLogsReply,
  type JobSummary,
  type ListJobsRequest,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { toJob, toJobSummary } from './job-row.mapper.js';
import { JobListingStore } from '../store/job-listing.store.js';
import { JobStore } from '../store/job.store.js';

type ListFilter = Omit<ListJobsRequest, 'actor'>;

/** Reads of jobs for the run API (which decides who may see them): a job, lists, logs, a node's result. */
@Injectable()
export class JobQueries {
  constructor(
    private readonly jobs: JobStore,
    private readonly listing: JobListingStore,
  ) {}

  /** The job when it exists in `workspace`; whether the caller may see it is not asked here. */
  async find(workspace: string, id: string): Promise<Job | undefined> {
    const record = await this.jobs.load(id);
    return record && record.workspace === workspace ? toJob(record) : undefined;
  }

  async list(filter: ListFilter): Promise<JobSummary[]> {
    const rows = await this.listing.list(filter);
    return rows.map((row) =>
      toJobSummary({ ...row, priority: row.priority === null ? null : Number(row.priority) }),
    );
  }

  /** The job's logs from character `offset` on. */
  async logs(workspace: string, id: string, offset: number): Promise<Omit<JobLogsReply, 'completed'>> {
    const row = await this.listing.logsOf(id);
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
