import { isTerminalJobStatus, MeshError, type RunJobWork } from '@flowmesh/contracts';
import { HandBackError } from '@flowmesh/messaging';
import { Injectable, Logger } from '@nestjs/common';
import { FlowDriver } from '../engine/flow-driver.js';
import { JobStore } from '../store/job.store.js';
import { ScriptJobExecutor } from './script-job.executor.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Takes one work message: a flow job is driven (this process becomes its scheduler until it
 * ends or parks), a script job (a step queued for this tag, or a script run) is executed. The
 * message is acknowledged only after what it caused is committed.
 */
@Injectable()
export class JobRunner {
  constructor(
    private readonly jobs: JobStore,
    private readonly flows: FlowDriver,
    private readonly scripts: ScriptJobExecutor,
  ) {}

  private readonly log = new Logger(JobRunner.name);

  /** `stopping`: the worker stops taking work; a flow driven here is handed back after its current step. */
  async run(work: RunJobWork, stopping?: AbortSignal): Promise<void> {
    try {
      await this.take(work, stopping);
    } catch (error) {
      // A MeshError is a verdict on the message; anything else is the engine's own failure, retried.
      if (!(error instanceof MeshError) && !(error instanceof HandBackError)) {
        this.log.error(
          `job ${work.jobId}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
      }
      throw error;
    }
  }

  private async take(work: RunJobWork, stopping: AbortSignal | undefined): Promise<void> {
    if (!UUID.test(work.jobId))
      throw new MeshError('NOT_FOUND', `job ${work.jobId} not found in workspace ${work.workspace}`);
    // A script run (the message says so): its lease taken at once, the row read with it.
    if (work.script === true && (await this.scripts.executeLeased(work.jobId, work.workspace, stopping)))
      return;
    // Most messages are for flow jobs: taking the lease reads the row too.
    if (await this.flows.driveFromMessage(work.jobId, stopping)) return;
    const record = await this.jobs.load(work.jobId);
    if (!record || record.workspace !== work.workspace) {
      throw new MeshError('NOT_FOUND', `job ${work.jobId} not found in workspace ${work.workspace}`);
    }
    if (isTerminalJobStatus(record.status)) return;
    // AI steps are agent-runtime's: it completes them itself.
    if (record.kind === 'aiagent' || record.kind === 'aidecision') return;
    return this.scripts.execute(record, stopping);
  }
}
