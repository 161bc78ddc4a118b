import { MeshError } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '../http/caller.js';
import { JobsEngine } from './jobs-engine.port.js';

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
    private readonly engine: JobsEngine,
    @Inject(WAIT_RESULT_TIMEOUT_MS) private readonly timeoutMs: number,
  ) {}

  async outcomeOf(caller: Caller, jobId: string): Promise<JobOutcome> {
    const reply = await this.engine.waitForResult(caller, jobId, this.timeoutMs);
    if (reply.completed) return { success: reply.success !== false, result: reply.result };
    throw new MeshError(
      'TIMEOUT',
      `job ${jobId} did not complete within ${this.timeoutMs} ms; it still runs: follow it with jobs_u/completed/get_result_maybe/${jobId}`,
      { id: jobId },
    );
  }
}
