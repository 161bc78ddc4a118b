import type { createOrchestratorAgentStepClient } from '@flowmesh/contracts';
import type { Logger } from '@flowmesh/telemetry';
import { SerialWrites } from './serial-writes.js';

type AgentStepClient = ReturnType<typeof createOrchestratorAgentStepClient>;

/**
 * The step's job log, where the flow's user reads what the agent decided on its own (an input
 * ignored, a stateless fallback, a compaction, a memory not saved); each line is also logged by
 * the service. Lines are written in the background, one after the other so they keep their order;
 * `flushed` waits for them before the step ends, since the orchestrator takes no line once the step
 * has ended.
 */
export class StepJobLog {
  private readonly writes = new SerialWrites();

  constructor(
    private readonly steps: AgentStepClient,
    private readonly step: { readonly job_id: string; readonly workspace: string },
    private readonly logger: Logger,
  ) {}

  readonly write = (line: string): void => {
    this.logger.info(line);
    this.writes
      .enqueue(() => this.steps.log({ ...this.step, line }))
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, 'a line of the job log could not be written'),
      );
  };

  flushed(): Promise<void> {
    return this.writes.flushed();
  }
}
