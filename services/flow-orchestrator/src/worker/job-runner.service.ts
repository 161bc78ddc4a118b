import type { RunJobWork } from '@flowmesh/contracts';
import { MeshError } from '@flowmesh/contracts';
import { Injectable, Logger } from '@nestjs/common';

/**
 * Runs one job. Script execution is not built yet, so a job is refused for good with a reason
 * (it goes to the dead-letter stream) rather than acked as if it had run, or retried in vain.
 */
@Injectable()
export class JobRunner {
  private readonly log = new Logger(JobRunner.name);

  run(job: RunJobWork): Promise<void> {
    this.log.warn(`job ${job.jobId} (workspace ${job.workspace}): this worker cannot execute jobs yet`);
    return Promise.reject(
      new MeshError('UNSUPPORTED', `job ${job.jobId}: this worker version cannot execute jobs yet`, {
        jobId: job.jobId,
      }),
    );
  }
}
