import type { FlowStatus, FlowStatusModule } from '@flowmesh/contracts';

/** What of a run's `flow_status` says how its steps went. */
type StepStatuses = Pick<FlowStatus, 'modules'> & Partial<Pick<FlowStatus, 'failure_module'>>;

/**
 * Turns successive `flow_status` snapshots of a run into one line per step as it completes (and
 * one when the flow parks on an approval), each step said once, in flow order.
 */
export class StepProgress {
  private readonly said = new Map<string, string>();

  constructor(private readonly jobId: string) {}

  linesFor(status: StepStatuses | null | undefined): string[] {
    if (!status) return [];
    const lines: string[] = [];
    for (const [index, module] of status.modules.entries()) {
      this.say(lines, module.id ?? `#${index}`, module);
    }
    if (status.failure_module) this.say(lines, 'failure', status.failure_module);
    return lines;
  }

  private say(lines: string[], id: string, module: FlowStatusModule): void {
    const line = this.describe(id, module);
    if (line === undefined || this.said.get(id) === line) return;
    this.said.set(id, line);
    lines.push(line);
  }

  private describe(id: string, module: FlowStatusModule): string | undefined {
    if (module.type === 'Success') return module.skipped ? `- ${id} skipped` : `✓ ${id}`;
    if (module.type === 'Failure') return `✗ ${id} failed`;
    if (module.type === 'WaitingForEvents') {
      return `… approval needed before ${id}: flowmesh jobs resume ${this.jobId} (or --deny)`;
    }
    return undefined;
  }
}
