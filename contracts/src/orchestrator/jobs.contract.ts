import { z } from 'zod';
import {
  createContractClient,
  defineRequest,
  SAFE_TO_REPEAT,
  type RequestTransport,
} from '../messaging/contract.js';
import { JobSchema, JobSummarySchema } from './job.schema.js';
import {
  CancelJobReplySchema,
  CancelJobRequestSchema,
  JobIdRequestSchema,
  JobLogsReplySchema,
  JobLogsRequestSchema,
  JobResultReplySchema,
  ListJobsRequestSchema,
  ResultByNodeReplySchema,
  ResultByNodeRequestSchema,
  ResumeJobReplySchema,
  ResumeJobRequestSchema,
  RestartFlowRequestSchema,
  RunFlowRequestSchema,
  RunJobReplySchema,
  RunScriptRequestSchema,
  MAX_RESULT_WAIT_MS,
  WaitJobResultRequestSchema,
} from './jobs.schema.js';

/**
 * Jobs, answered by flow-orchestrator. Every request carries the caller's token (`actor`); the
 * orchestrator authenticates it with the registry. A job the caller may not see answers
 * NOT_FOUND, exactly as one that does not exist.
 */
export const orchestratorJobsContract = {
  runFlow: defineRequest('orchestrator.job.run_flow', RunFlowRequestSchema, RunJobReplySchema),
  runScript: defineRequest('orchestrator.job.run_script', RunScriptRequestSchema, RunJobReplySchema),
  /** A new run of an ended flow from one of its steps, reusing the earlier steps' results. */
  restartFlow: defineRequest('orchestrator.job.restart_flow', RestartFlowRequestSchema, RunJobReplySchema),
  get: defineRequest('orchestrator.job.get', JobIdRequestSchema, JobSchema, SAFE_TO_REPEAT),
  getResult: defineRequest(
    'orchestrator.job.get_result',
    JobIdRequestSchema,
    JobResultReplySchema,
    SAFE_TO_REPEAT,
  ),
  /** As `getResult`, answered once the job ends or `timeout_ms` passed (`completed` false then). */
  waitResult: defineRequest(
    'orchestrator.job.wait_result',
    WaitJobResultRequestSchema,
    JobResultReplySchema,
    {
      timeoutMs: MAX_RESULT_WAIT_MS + 10_000,
    },
  ),
  resultByNode: defineRequest(
    'orchestrator.job.result_by_node',
    ResultByNodeRequestSchema,
    ResultByNodeReplySchema,
    SAFE_TO_REPEAT,
  ),
  cancel: defineRequest('orchestrator.job.cancel', CancelJobRequestSchema, CancelJobReplySchema),
  resume: defineRequest('orchestrator.job.resume', ResumeJobRequestSchema, ResumeJobReplySchema),
  list: defineRequest(
    'orchestrator.job.list',
    ListJobsRequestSchema,
    z.object({ jobs: z.array(JobSummarySchema) }),
    SAFE_TO_REPEAT,
  ),
  logs: defineRequest('orchestrator.job.logs', JobLogsRequestSchema, JobLogsReplySchema, SAFE_TO_REPEAT),
} as const;

export type OrchestratorJobsContract = typeof orchestratorJobsContract;

/** `jobs.runFlow({ actor, workspace, value, args })`, ... over any request transport (a `MeshClient`). */
export function createOrchestratorJobsClient(transport: RequestTransport) {
  return createContractClient(orchestratorJobsContract, transport);
}
export type OrchestratorJobsClient = ReturnType<typeof createOrchestratorJobsClient>;
