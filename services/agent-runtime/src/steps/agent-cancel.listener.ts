import { jobEvents, type JobCancelRequestedEvent } from '@flowmesh/contracts';
import { FollowEvent } from '@flowmesh/messaging';
import type { Logger } from '@flowmesh/telemetry';
import { Inject, Injectable } from '@nestjs/common';
import { AgentRuns } from '../runs/agent-runs.service.js';
import { AGENT_LOGGER } from '../runs/agent-step.executor.js';

/**
 * Hears every cancel (each replica, since any may run the step) and stops the AI steps it ended.
 * The orchestrator's database holds the cancel itself; a replica that misses the event finishes
 * the step and its outcome is dropped, as before.
 */
@Injectable()
export class AgentCancelListener {
  constructor(
    private readonly runs: AgentRuns,
    @Inject(AGENT_LOGGER) private readonly logger: Logger,
  ) {}

  @FollowEvent(jobEvents.cancelRequested)
  onCancelRequested({ agent_steps: steps }: JobCancelRequestedEvent): void {
    if (!steps?.length) return;
    this.runs
      .cancel(steps)
      .catch((error: unknown) =>
        this.logger.warn({ err: error, job_ids: steps }, 'cancelled agent steps could not be dropped'),
      );
  }
}
