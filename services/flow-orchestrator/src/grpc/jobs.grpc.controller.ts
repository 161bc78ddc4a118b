import { MAX_RESULT_WAIT_MS, orchestratorJobsContract as contract } from '@flowmesh/contracts';
import { WatchJobRequestSchema } from '@flowmesh/contracts/grpc';
import type { Metadata, ServerUnaryCall, ServerWritableStream } from '@grpc/grpc-js';
import { Controller, UseFilters } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import type { Observable } from 'rxjs';
import { freshResumeId, JobsApi } from '../run-api/jobs-api.service.js';
import { actorOf, contractRequest, grpcReply, msLeft, parseGrpcRequest, serveUnary } from './grpc-calls.js';
import { GrpcErrorFilter } from './grpc-error.filter.js';
import { JobWatch } from './job-watch.service.js';

type Call = ServerUnaryCall<object, object>;
/** How much of a deadline a wait leaves for its answer to travel back: a tenth, 50 ms to 1 s. */
const answerMarginMs = (left: number) => Math.min(1_000, Math.max(50, left / 10));

/**
 * `flowmesh.v1.Jobs`: the `orchestrator.job.*` use cases (`JobsApi`, shared with the NATS
 * handlers) behind the gRPC transport, as the caller of the call's bearer token.
 */
@Controller()
@UseFilters(GrpcErrorFilter)
export class JobsGrpcController {
  constructor(
    private readonly api: JobsApi,
    private readonly watching: JobWatch,
  ) {}

  @GrpcMethod('Jobs', 'RunFlow')
  runFlow(_: object, __: Metadata, call: Call) {
    return serveUnary(call, contract.runFlow.request, (request) => this.api.runFlow(request));
  }

  @GrpcMethod('Jobs', 'RunScript')
  runScript(_: object, __: Metadata, call: Call) {
    return serveUnary(call, contract.runScript.request, (request) => this.api.runScript(request));
  }

  @GrpcMethod('Jobs', 'RestartFlow')
  restartFlow(_: object, __: Metadata, call: Call) {
    return serveUnary(call, contract.restartFlow.request, (request) => this.api.restartFlow(request));
  }

  @GrpcMethod('Jobs', 'GetJob')
  getJob(_: object, __: Metadata, call: Call) {
    return serveUnary(call, contract.get.request, (request) => this.api.get(request));
  }

  @GrpcMethod('Jobs', 'GetResult')
  getResult(_: object, __: Metadata, call: Call) {
    return serveUnary(call, contract.getResult.request, (request) => this.api.getResult(request));
  }

  /** Waits `timeout_ms`, or until shortly before the call's deadline when that comes first. */
  @GrpcMethod('Jobs', 'WaitResult')
  async waitResult(_: object, __: Metadata, call: Call) {
    const request = contractRequest(call, contract.waitResult.request);
    const left = msLeft(call);
    const budget = Math.floor(left - answerMarginMs(left));
    const timeout_ms = Math.max(0, Math.min(request.timeout_ms, MAX_RESULT_WAIT_MS, budget));
    return grpcReply(call, await this.api.waitResult({ ...request, timeout_ms }));
  }

  @GrpcMethod('Jobs', 'ResultByNode')
  resultByNode(_: object, __: Metadata, call: Call) {
    return serveUnary(call, contract.resultByNode.request, (request) => this.api.resultByNode(request));
  }

  @GrpcMethod('Jobs', 'CancelJob')
  cancelJob(_: object, __: Metadata, call: Call) {
    return serveUnary(call, contract.cancel.request, (request) => this.api.cancel(request));
  }

  /** As the caller (never for someone else), a fresh approval id unless one is named. */
  @GrpcMethod('Jobs', 'ResumeJob')
  async resumeJob(_: object, __: Metadata, call: Call) {
    const request = contractRequest(call, contract.resume.request, { resume_id: freshResumeId() });
    return grpcReply(call, await this.api.resume({ ...request, authenticated: true }));
  }

  @GrpcMethod('Jobs', 'ListJobs')
  listJobs(_: object, __: Metadata, call: Call) {
    return serveUnary(call, contract.list.request, (request) => this.api.list(request));
  }

  @GrpcMethod('Jobs', 'GetLogs')
  getLogs(_: object, __: Metadata, call: Call) {
    return serveUnary(call, contract.logs.request, (request) => this.api.logs(request));
  }

  @GrpcMethod('Jobs', 'WatchJob')
  watchJob(_: object, __: Metadata, call: ServerWritableStream<object, object>): Observable<object> {
    const actor = actorOf(call.metadata);
    return this.watching.watch(actor, parseGrpcRequest(call, WatchJobRequestSchema));
  }
}
