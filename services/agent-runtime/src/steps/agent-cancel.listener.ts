import { jobEvents } from '@flowmesh/contracts';
import { InjectMeshConnection, listenToEvent, type MeshConnection } from '@flowmesh/messaging';
import type { Logger } from '@flowmesh/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { AgentRuns } from '../runs/agent-runs.service.js';
import { AGENT_LOGGER } from '../runs/agent-step.executor.js';

/**
 * Hears every cancel (each replica, since any may run the step) and stops the AI steps it ended.
 * The orchestrator's database holds the cancel itself; a replica that misses the event finishes
 * the step and its outcome is dropped, as before.
 */
@Injectable()
export class AgentCancelListener implements OnApplicationBootstrap, OnModuleDestroy {
  private subscription: { unsubscribe(): void } | undefined;

  constructor(
    @InjectMeshConnection() private readonly conn: MeshConnection,
    private readonly runs: AgentRuns,
    @Inject(AGENT_LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.subscription = listenToEvent(this.conn, jobEvents.cancelRequested, ({ agent_steps: steps }) => {
      if (!steps?.length) return;
      this.runs
        .cancel(steps)
        .catch((error: unknown) =>
          this.logger.warn({ err: error, job_ids: steps }, 'cancelled agent steps could not be dropped'),
        );
    });
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }
}
