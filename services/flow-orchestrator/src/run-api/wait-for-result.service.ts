import { MeshError, type JobResultReply } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { jobNotFound } from '../access/job-visibility.service.js';
import type { Caller } from '../http/caller.js';
import { JobQueries } from '../jobs/job-queries.js';
import { JobWaiter } from '../jobs/job-waiter.js';

export const WAIT_RESULT_TIMEOUT_MS = Symbol('flow-orchestrator.wait-result-timeout-ms');

/** How a job ended, or its early result: `success` false carries the job's `{ error }`. */
export interface JobOutcome {
  readonly success: boolean;
  readonly result: unknown;
}

/**
 * `run_wait_result`: hold the request until the job ends, or until a flow with `early_return`
 * has its early result (the flow keeps running). Past the configured time the caller gets
 * TIMEOUT with the job id, to follow it with `get_result_maybe`.
 */
@Injectable()
export class WaitForResultService {
  constructor(
    private readonly jobs: JobQueries,
    private readonly waiter: JobWaiter,
    @Inject(WAIT_RESULT_TIMEOUT_MS) private readonly timeoutMs: number,
  ) {}

  async outcomeOf(caller: Caller, jobId: string): Promise<JobOutcome> {
    const reply = await this.waitFor(caller, jobId, this.timeoutMs, true);
    if (reply.completed) return { success: reply.success !== false, result: reply.result };
    throw new MeshError(
      'TIMEOUT',
      `job ${jobId} did not complete within ${this.timeoutMs} ms; it still runs: follow it with jobs_u/completed/get_result_maybe/${jobId}`,
      { id: jobId },
    );
  }

  /**
   * Until job `id` of the caller's workspace ends, or (`earlyReturn`) a flow's `early_return`
   * has its result; `completed` false at the time limit. Who may see the job is the caller's
   * check, made before.
   */
  async waitFor(
    caller: Caller,
    id: string,
    timeoutMs: number,
    earlyReturn: boolean,
  ): Promise<JobResultReply> {
    const workspace = caller.identity.workspace;
    if (!(await this.jobs.find(workspace, id))) throw jobNotFound(id);
    return this.waiter.wait(workspace, id, timeoutMs, earlyReturn);
  }
}
