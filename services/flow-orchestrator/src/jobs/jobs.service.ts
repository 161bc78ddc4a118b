import {
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
  type RunFlowRequest,
  type RunJobReply,
  type RunScriptRequest,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { ResumeCommand, ResumeOutcome, WaitForResultOptions } from './job-commands.js';

/**
 * The jobs use cases the HTTP and NATS run APIs call. Every method takes the request as the
 * contract defines it; `caller`, when the transport already authenticated `req.actor`, saves a
 * second round trip to the registry.
 */
@Injectable()
export class JobsService {
  runFlow(req: RunFlowRequest, caller?: CallerIdentity): Promise<RunJobReply> {
    return notYet('runFlow', req, caller);
  }

  runScript(req: RunScriptRequest, caller?: CallerIdentity): Promise<RunJobReply> {
    return notYet('runScript', req, caller);
  }

  getJob(req: JobIdRequest, caller?: CallerIdentity): Promise<Job> {
    return notYet('getJob', req, caller);
  }

  getResult(req: JobIdRequest, caller?: CallerIdentity): Promise<JobResultReply> {
    return notYet('getResult', req, caller);
  }

  /** Waits until the job ends (or its flow returns early), then answers as `getResult`. */
  waitForResult(req: JobIdRequest, options: WaitForResultOptions, caller?: CallerIdentity): Promise<JobResultReply> {
    return notYet('waitForResult', { req, options }, caller);
  }

  resultByNode(
    req: { actor: { token: string }; workspace: string; flow_job_id: string; node_id: string },
    caller?: CallerIdentity,
  ): Promise<{ result: unknown }> {
    return notYet('resultByNode', req, caller);
  }

  cancel(req: CancelJobRequest, caller?: CallerIdentity): Promise<{ cancelled: boolean }> {
    return notYet('cancel', req, caller);
  }

  resumeSuspended(command: ResumeCommand): Promise<{ outcome: ResumeOutcome }> {
    return notYet('resumeSuspended', command);
  }

  list(req: ListJobsRequest, caller?: CallerIdentity): Promise<{ jobs: JobSummary[] }> {
    return notYet('list', req, caller);
  }

  logs(req: JobLogsRequest, caller?: CallerIdentity): Promise<JobLogsReply> {
    return notYet('logs', req, caller);
  }
}

function notYet<T>(what: string, ..._args: unknown[]): Promise<T> {
  return Promise.reject(new MeshError('UNSUPPORTED', `JobsService.${what} is not built yet`));
}
