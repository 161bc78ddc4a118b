import type { JobSummary } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { Caller } from '../http/caller.js';
import { JobVisibility } from './job-visibility.service.js';
import { JobsEngine, type JobFilter } from './jobs-engine.port.js';

/** The jobs of the caller's workspace matching the filter that the caller may see. */
@Injectable()
export class ListJobsService {
  constructor(
    private readonly engine: JobsEngine,
    private readonly visibility: JobVisibility,
  ) {}

  async list(caller: Caller, filter: JobFilter): Promise<JobSummary[]> {
    // Non-admins see only their own jobs and those of paths they may read: filtered after the
    // query, so a page can come back shorter than the limit.
    const jobs = await this.engine.list(caller, filter);
    return this.visibility.filterReadable(caller, jobs);
  }
}
