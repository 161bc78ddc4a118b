import { Global, Module, type Provider } from '@nestjs/common';
import { AgentStepUseCase } from './agent-step.use-case.js';
import { CancelJobUseCase } from './cancel-job.use-case.js';
import { ChatTranscript } from './chat-transcript.js';
import { JobQueries } from './job-queries.js';
import { JobWaiter } from './job-waiter.js';
import { RestartFlowUseCase } from './restart-flow.use-case.js';
import { ResumeJobUseCase } from './resume-job.use-case.js';
import { RunFlowUseCase } from './run-flow.use-case.js';
import { RunScriptUseCase } from './run-script.use-case.js';

const JOBS_PROVIDERS: Provider[] = [
  ChatTranscript,
  RunFlowUseCase,
  RestartFlowUseCase,
  RunScriptUseCase,
  CancelJobUseCase,
  ResumeJobUseCase,
  JobQueries,
  JobWaiter,
  AgentStepUseCase,
];

/**
 * The use cases on jobs (run, cancel, resume, read, wait, AI steps' reports), over the engine
 * (`EngineModule`, global), which they use and which does not know them.
 */
@Global()
@Module({ providers: JOBS_PROVIDERS, exports: JOBS_PROVIDERS })
export class JobsModule {}
