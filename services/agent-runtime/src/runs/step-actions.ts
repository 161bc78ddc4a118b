import type { AgentAction, createOrchestratorAgentStepClient } from '@flowmesh/contracts';
import type { Logger } from '@flowmesh/telemetry';
import { SerialWrites } from './serial-writes.js';

type AgentStepClient = ReturnType<typeof createOrchestratorAgentStepClient>;

/**
 * The step's actions (its messages, tool calls, requests), reported to the orchestrator one after
 * the other in the background: the agent goes on while one is written, instead of waiting a round
 * trip and a Postgres write per action. `flushed` waits for all of them, so the step's outcome is
 * reported after its last action (the orchestrator takes none once the step has ended).
 */
export class StepActions {
  private readonly writes = new SerialWrites();

  constructor(
    private readonly steps: AgentStepClient,
    private readonly step: { readonly job_id: string; readonly workspace: string },
    private readonly logger: Logger,
  ) {}

  /** Queues the action after the ones before it; resolves at once. */
  readonly report = (action: AgentAction, success: boolean): Promise<void> => {
    this.enqueue({ action, success });
    return Promise.resolve();
  };

  /** Queues the success of a tool call reported before (once its tool ended); resolves at once. */
  readonly settle = (action: AgentAction, success: boolean): Promise<void> => {
    this.enqueue({ action, success, settle: true });
    return Promise.resolve();
  };

  flushed(): Promise<void> {
    return this.writes.flushed();
  }

  private enqueue(report: { action: AgentAction; success: boolean; settle?: true }): void {
    this.writes
      .enqueue(() => this.steps.reportAction({ ...this.step, ...report }))
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, 'an action of the step could not be reported'),
      );
  }
}
