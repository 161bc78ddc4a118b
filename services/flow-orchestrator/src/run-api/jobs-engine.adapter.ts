import type { Job, JobLogsReply, JobResultReply, JobSummary } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { SuspendedApprovalReader } from '../approvals/suspended-approval.reader.js';
import type { Caller } from '../http/caller.js';
import { toJob } from '../jobs/job-row.mapper.js';
import { JobStore } from '../store/job.store.js';
import { JobsService } from '../jobs/jobs.service.js';
import {
  JobsEngine,
  type JobFilter,
  type ResumeCommand,
  type ResumeOutcome,
  type RunFlowCommand,
  type RunScriptCommand,
  type SuspendedApproval,
} from './jobs-engine.port.js';

/**
 * The engine's `JobsService` as the run API's `JobsEngine`: requests as the contracts define
 * them, with the identity the run API already authenticated (no second registry round trip).
 */
@Injectable()
export class JobsEngineAdapter extends JobsEngine {
  constructor(
    private readonly jobs: JobsService,
    private readonly rows: JobStore,
    private readonly approvals: SuspendedApprovalReader,
  ) {
    super();
  }

  async runFlow(caller: Caller, command: RunFlowCommand): Promise<string> {
    return (await this.jobs.runFlow({ ...this.as(caller), ...command }, caller.identity)).job_id;
  }

  async runScript(caller: Caller, command: RunScriptCommand): Promise<string> {
    return (await this.jobs.runScript({ ...this.as(caller), ...command }, caller.identity)).job_id;
  }

  async findJob(workspace: string, id: string): Promise<Job | undefined> {
    const row = await this.rows.load(id);
    return row && row.workspace === workspace ? toJob(row) : undefined;
  }

  waitForResult(caller: Caller, id: string, timeoutMs: number, earlyReturn = true): Promise<JobResultReply> {
    return this.jobs.waitForResult({ ...this.as(caller), id }, { timeoutMs, earlyReturn }, caller.identity);
  }

  async resultByNode(caller: Caller, flowJobId: string, nodeId: string): Promise<unknown> {
    const reply = await this.jobs.resultByNode(
      { ...this.as(caller), flow_job_id: flowJobId, node_id: nodeId },
      caller.identity,
    );
    return reply.result;
  }

  async cancel(caller: Caller, id: string, reason?: string): Promise<boolean> {
    const request = { ...this.as(caller), id, ...(reason === undefined ? {} : { reason }) };
    return (await this.jobs.cancel(request, caller.identity)).cancelled;
  }

  async resumeSuspended(command: ResumeCommand): Promise<ResumeOutcome> {
    return (await this.jobs.resumeSuspended(command)).outcome;
  }

  suspendedApproval(workspace: string, jobId: string): Promise<SuspendedApproval | undefined> {
    return this.approvals.read(workspace, jobId);
  }

  async list(caller: Caller, filter: JobFilter): Promise<JobSummary[]> {
    return (await this.jobs.list({ ...this.as(caller), ...filter }, caller.identity)).jobs;
  }

  logs(caller: Caller, id: string, offset: number): Promise<JobLogsReply> {
    return this.jobs.logs({ ...this.as(caller), id, offset }, caller.identity);
  }

  private as(caller: Caller) {
    return { actor: caller.actor, workspace: caller.identity.workspace };
  }
}
