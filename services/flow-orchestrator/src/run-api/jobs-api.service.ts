import { randomInt } from 'node:crypto';
import { orchestratorJobsContract as contract, type Job, type JobResultReply } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { JobVisibility } from '../access/job-visibility.service.js';
import { ResumeJobService } from '../approvals/resume-job.service.js';
import { ActorCallerResolver } from '../http/actor-caller.resolver.js';
import { requestFieldsOf } from '../http/caller.js';
import { RunFlowUseCase } from '../jobs/run-flow.use-case.js';
import { RunScriptUseCase } from '../jobs/run-script.use-case.js';
import { CancelJobService } from './cancel-job.service.js';
import { ListJobsService } from './list-jobs.service.js';
import { ReadJobService } from './read-job.service.js';
import { RestartFlowService } from './restart-flow.service.js';
import { WaitForResultService } from './wait-for-result.service.js';

type Req<K extends keyof typeof contract> = z.output<(typeof contract)[K]['request']>;

/** A fresh approval id for an answer that names none (one approval per answer, as over HTTP). */
export function freshResumeId(): number {
  return randomInt(2 ** 31);
}

/**
 * The `orchestrator.job.*` requests as use cases, each taking the contract's parsed request and
 * acting as the caller whose `actor` token the registry vouches for: the NATS handlers and the
 * gRPC API both call these, so the two never differ.
 */
@Injectable()
export class JobsApi {
  constructor(
    private readonly callers: ActorCallerResolver,
    private readonly runFlows: RunFlowUseCase,
    private readonly runScripts: RunScriptUseCase,
    private readonly visibility: JobVisibility,
    private readonly read: ReadJobService,
    private readonly listing: ListJobsService,
    private readonly cancelling: CancelJobService,
    private readonly resumes: ResumeJobService,
    private readonly results: WaitForResultService,
    private readonly restarts: RestartFlowService,
  ) {}

  async runFlow({ actor, workspace, ...command }: Req<'runFlow'>) {
    const caller = await this.callers.callerOf({ actor, workspace });
    return { job_id: await this.runFlows.run({ ...requestFieldsOf(caller), ...command }, caller.identity) };
  }

  async runScript({ actor, workspace, ...command }: Req<'runScript'>) {
    const caller = await this.callers.callerOf({ actor, workspace });
    return { job_id: await this.runScripts.run({ ...requestFieldsOf(caller), ...command }, caller.identity) };
  }

  async restartFlow(req: Req<'restartFlow'>) {
    const caller = await this.callers.callerOf(req);
    const point = { stepId: req.step_id, branchOrIterationN: req.branch_or_iteration_n };
    return { job_id: await this.restarts.restart(caller, req.id, point, req.job_id) };
  }

  async get(req: Req<'get'>): Promise<Job> {
    return this.visibility.readable(await this.callers.callerOf(req), req.id);
  }

  async getResult(req: Req<'getResult'>): Promise<JobResultReply> {
    return this.read.resultReply(await this.callers.callerOf(req), req.id);
  }

  async waitResult(req: Req<'waitResult'>): Promise<JobResultReply> {
    const caller = await this.callers.callerOf(req);
    await this.visibility.readable(caller, req.id);
    // The job's end, not a flow's early return: the caller asked for its result.
    return this.results.waitFor(caller, req.id, req.timeout_ms, false);
  }

  async resultByNode(req: Req<'resultByNode'>) {
    return {
      result: await this.read.resultByNode(await this.callers.callerOf(req), req.flow_job_id, req.node_id),
    };
  }

  async cancel(req: Req<'cancel'>) {
    return { cancelled: await this.cancelling.cancel(await this.callers.callerOf(req), req.id, req.reason) };
  }

  async resume(req: Req<'resume'>) {
    const caller = await this.callers.callerOf(req);
    const answer = { approve: req.approve, payload: req.payload ?? {} };
    const as = {
      authenticated: req.authenticated,
      ...(req.approver === undefined ? {} : { approver: req.approver }),
    };
    return { outcome: await this.resumes.asCaller(caller, req.id, req.resume_id, answer, as) };
  }

  async list({ actor, workspace, ...filter }: Req<'list'>) {
    return { jobs: await this.listing.list(await this.callers.callerOf({ actor, workspace }), filter) };
  }

  async logs(req: Req<'logs'>) {
    return this.read.logs(await this.callers.callerOf(req), req.id, req.offset);
  }
}
