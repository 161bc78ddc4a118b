import { Injectable } from '@nestjs/common';
import { JobVisibility } from '../access/job-visibility.service.js';
import type { Caller } from '../http/caller.js';
import { RestartFlowUseCase } from '../jobs/restart-flow.use-case.js';

/**
 * Restarts an ended flow run from a step for a caller who may read it (a run they may not read
 * answers NOT_FOUND, as a job that does not exist) and may run its flow.
 */
@Injectable()
export class RestartFlowService {
  constructor(
    private readonly visibility: JobVisibility,
    private readonly restarts: RestartFlowUseCase,
  ) {}

  async restart(
    caller: Caller,
    id: string,
    point: { stepId: string; branchOrIterationN?: number | undefined },
    jobId?: string,
  ): Promise<string> {
    const earlier = await this.visibility.readable(caller, id);
    const { stepId, branchOrIterationN } = point;
    return this.restarts.restart(
      earlier,
      { stepId, ...(branchOrIterationN === undefined ? {} : { branchOrIterationN }) },
      caller,
      jobId,
    );
  }
}
