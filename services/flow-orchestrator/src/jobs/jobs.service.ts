import {
  createRegistryIdentityClient,
  MeshError,
  type CallerIdentity,
  type CancelJobRequest,
  type Job,
  type JobIdRequest,
  type JobLogsReply,
  type JobLogsRequest,
  type JobResultReply,
  type JobSummary,
  type ListJobsRequest,
  type RegistryIdentityClient,
  type RunFlowRequest,
  type RunJobReply,
  type RunScriptRequest,
} from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import { Injectable } from '@nestjs/common';
import { CancelJobUseCase } from './cancel-job.use-case.js';
import type { ResumeCommand, ResumeOutcome, WaitForResultOptions } from './job-commands.js';
import { JobQueries } from './job-queries.js';
import { toJob } from './job-row.mapper.js';
import { JobStore } from '../store/job.store.js';
import { JobWaiter } from './job-waiter.js';
import { ResumeJobUseCase } from './resume-job.use-case.js';
import { RunFlowUseCase } from './run-flow.use-case.js';
import { RunScriptUseCase } from './run-script.use-case.js';

/**
 * The jobs use cases the HTTP and NATS run APIs call. Every method takes the request as the
 * contract defines it; `caller`, when the transport already authenticated `req.actor`, saves a
 * second round trip to the registry. Who may see or act on a job is the run API's decision
 * (`JobVisibility`); here a job is found in its workspace or not at all.
 */
@Injectable()
export class JobsService {
  private readonly identity: RegistryIdentityClient;

  constructor(
    client: MeshClient,
    private readonly jobs: JobStore,
    private readonly runFlows: RunFlowUseCase,
    private readonly runScripts: RunScriptUseCase,
    private readonly cancels: CancelJobUseCase,
    private readonly resumes: ResumeJobUseCase,
    private readonly queries: JobQueries,
    private readonly waiter: JobWaiter,
  ) {
    this.identity = createRegistryIdentityClient(client);
  }

  async runFlow(req: RunFlowRequest, caller?: CallerIdentity): Promise<RunJobReply> {
    return { job_id: await this.runFlows.run(req, caller ?? (await this.authenticate(req))) };
  }

  async runScript(req: RunScriptRequest, caller?: CallerIdentity): Promise<RunJobReply> {
    return { job_id: await this.runScripts.run(req, caller ?? (await this.authenticate(req))) };
  }

  async getJob(req: JobIdRequest, caller?: CallerIdentity): Promise<Job> {
    if (!caller) await this.authenticate(req);
    const record = await this.jobs.load(req.id);
    if (!record || record.workspace !== req.workspace)
      throw new MeshError('NOT_FOUND', `job ${req.id} not found`, { id: req.id });
    return toJob(record);
  }

  async getResult(req: JobIdRequest, caller?: CallerIdentity): Promise<JobResultReply> {
    return this.waitForResult(req, { timeoutMs: 0 }, caller);
  }

  /** Waits until the job ends (or its flow returns early), then answers as `getResult`; `completed` false on timeout. */
  async waitForResult(
    req: JobIdRequest,
    options: WaitForResultOptions,
    caller?: CallerIdentity,
  ): Promise<JobResultReply> {
    if (!caller) await this.authenticate(req);
    const record = await this.jobs.load(req.id);
    if (!record || record.workspace !== req.workspace)
      throw new MeshError('NOT_FOUND', `job ${req.id} not found`, { id: req.id });
    return this.waiter.wait(req.workspace, req.id, options.timeoutMs, options.earlyReturn === true);
  }

  async resultByNode(
    req: { actor: { token: string }; workspace: string; flow_job_id: string; node_id: string },
    caller?: CallerIdentity,
  ): Promise<{ result: unknown }> {
    if (!caller) await this.authenticate(req);
    return { result: await this.queries.resultByNode(req.workspace, req.flow_job_id, req.node_id) };
  }

  async cancel(req: CancelJobRequest, caller?: CallerIdentity): Promise<{ cancelled: boolean }> {
    const identity = caller ?? (await this.authenticate(req));
    return {
      cancelled: await this.cancels.cancel(req.workspace, req.id, identity.username, req.reason ?? null),
    };
  }

  async resumeSuspended(command: ResumeCommand): Promise<{ outcome: ResumeOutcome }> {
    return { outcome: await this.resumes.resume(command) };
  }

  async list(req: ListJobsRequest, caller?: CallerIdentity): Promise<{ jobs: JobSummary[] }> {
    if (!caller) await this.authenticate(req);
    const { actor: _actor, ...filter } = req;
    return { jobs: await this.queries.list(filter) };
  }

  async logs(req: JobLogsRequest, caller?: CallerIdentity): Promise<JobLogsReply> {
    if (!caller) await this.authenticate(req);
    const logs = await this.queries.logs(req.workspace, req.id, req.offset ?? 0);
    const job = await this.jobs.load(req.id);
    return { ...logs, completed: job ? ['completed', 'failed', 'cancelled'].includes(job.status) : false };
  }

  private authenticate(req: { actor: { token: string }; workspace: string }): Promise<CallerIdentity> {
    return this.identity.authenticate({ token: req.actor.token, workspace: req.workspace });
  }
}
