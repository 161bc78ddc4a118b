import type { JobSummary, ListJobsRequest } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { JobVisibility } from '../access/job-visibility.service.js';
import type { Caller } from '../http/caller.js';
import { JobQueries } from '../jobs/job-queries.js';

/** The list filters, without the caller fields the run API fills itself. */
export type JobFilter = Omit<ListJobsRequest, 'actor' | 'workspace'>;

/** The jobs of the caller's workspace matching the filter that the caller may see. */
@Injectable()
export class ListJobsService {
  constructor(
    private readonly jobs: JobQueries,
    private readonly visibility: JobVisibility,
  ) {}

  async list(caller: Caller, filter: JobFilter): Promise<JobSummary[]> {
    // Non-admins see only their own jobs and those of paths they may read: filtered after the
    // query, so a page can come back shorter than the limit.
    const jobs = await this.jobs.list({ ...filter, workspace: caller.identity.workspace });
    return this.visibility.filterReadable(caller, jobs);
  }
}
