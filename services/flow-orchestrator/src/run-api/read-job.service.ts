import {
  isTerminalJobStatus,
  MeshError,
  type JobResultMaybe,
  type JobResultReply,
  type JobUpdate,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { JobVisibility } from '../access/job-visibility.service.js';
import type { Caller } from '../http/caller.js';
import { JobQueries } from '../jobs/job-queries.js';
import { toWindmillJob } from './windmill-job.mapper.js';

/** Every read of one job, each after the visibility check (NOT_FOUND for a job the caller may not see). */
@Injectable()
export class ReadJobService {
  constructor(
    private readonly visibility: JobVisibility,
    private readonly jobs: JobQueries,
  ) {}

  async get(caller: Caller, id: string): Promise<Record<string, unknown>> {
    return toWindmillJob(await this.visibility.readable(caller, id));
  }

  async resultMaybe(caller: Caller, id: string): Promise<JobResultMaybe> {
    const job = await this.visibility.readable(caller, id);
    const completed = isTerminalJobStatus(job.status);
    return {
      completed,
      started: job.started_at !== null,
      ...(completed ? { success: job.status === 'completed' } : {}),
      result: completed ? job.result : null,
    };
  }

  /** `orchestrator.job.get_result`: get_result_maybe with the job's status. */
  async resultReply(caller: Caller, id: string): Promise<JobResultReply> {
    const job = await this.visibility.readable(caller, id);
    const completed = isTerminalJobStatus(job.status);
    return {
      completed,
      started: job.started_at !== null,
      status: job.status,
      ...(completed ? { success: job.status === 'completed' } : {}),
      result: completed ? job.result : null,
    };
  }

  /** The result of an ended job; a job still running is NOT_FOUND among completed jobs, as in Windmill. */
  async result(caller: Caller, id: string): Promise<unknown> {
    const job = await this.visibility.readable(caller, id);
    if (!isTerminalJobStatus(job.status)) {
      throw new MeshError('NOT_FOUND', `job ${id} has not completed yet (it is ${job.status})`, {
        id,
        status: job.status,
      });
    }
    return job.result;
  }

  async update(caller: Caller, id: string, logOffset: number): Promise<JobUpdate> {
    const job = await this.visibility.readable(caller, id);
    const logs = await this.jobs.logs(caller.identity.workspace, id, logOffset);
    return {
      running: job.status === 'running',
      completed: isTerminalJobStatus(job.status),
      new_logs: logs.logs,
      log_offset: logs.next_offset,
      flow_status: job.flow_status,
    };
  }

  async logs(
    caller: Caller,
    id: string,
    offset = 0,
  ): Promise<{ logs: string; next_offset: number; completed: boolean }> {
    const job = await this.visibility.readable(caller, id);
    const logs = await this.jobs.logs(caller.identity.workspace, id, offset);
    return { ...logs, completed: isTerminalJobStatus(job.status) };
  }

  async resultByNode(caller: Caller, flowJobId: string, nodeId: string): Promise<unknown> {
    await this.visibility.readable(caller, flowJobId);
    return this.jobs.resultByNode(caller.identity.workspace, flowJobId, nodeId);
  }
}
