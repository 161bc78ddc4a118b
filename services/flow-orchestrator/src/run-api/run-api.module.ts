import { Module, type DynamicModule, type ModuleMetadata } from '@nestjs/common';
import { ApprovalPageService } from '../approvals/approval-page.service.js';
import { ApproversController } from '../approvals/approvers.controller.js';
import { RequiredGroupsResolver } from '../approvals/required-groups.resolver.js';
import { ResumeFormValidator } from '../approvals/resume-form.validator.js';
import { ResumeJobService } from '../approvals/resume-job.service.js';
import { ResumeSigner } from '../approvals/resume-signer.js';
import { PUBLIC_URL, ResumeUrlsService } from '../approvals/resume-urls.service.js';
import { ResumeSuspendedController } from '../approvals/resume-suspended.controller.js';
import { SignedApprovalsController } from '../approvals/signed-approvals.controller.js';
import { AgentAnswers } from '../approvals/agent-answers.service.js';
import { SuspendedApprovalReader } from '../approvals/suspended-approval.reader.js';
import type { FlowOrchestratorConfig } from '../flow-orchestrator.config.js';
import { ActorCallerResolver } from '../http/actor-caller.resolver.js';
import { AuthenticationCache } from '../http/authentication.cache.js';
import { BearerAuthGuard } from '../http/bearer-auth.guard.js';
import { IdentityEventsListener } from '../http/identity-events.listener.js';
import { AUTHENTICATION_CACHE, RegistryAuthenticator } from '../http/registry-authenticator.js';
import { CancelJobService } from './cancel-job.service.js';
import { JobStreamController } from './job-stream.controller.js';
import { JobVisibility } from './job-visibility.service.js';
import { JobsGrpcController } from '../grpc/jobs.grpc.controller.js';
import { ItemsGrpcController } from '../grpc/items.grpc.controller.js';
import { JobWatch } from '../grpc/job-watch.service.js';
import { JobsApi } from './jobs-api.service.js';
import { JobsHandler } from './jobs.handler.js';
import { ListJobsService } from './list-jobs.service.js';
import { ReadJobService } from './read-job.service.js';
import { JobsEngineAdapter } from './jobs-engine.adapter.js';
import { JobsEngine } from './jobs-engine.port.js';
import { RegistryAccess } from './registry-access.js';
import { RunJobsController } from './run-jobs.controller.js';
import { ReadJobsController } from './read-jobs.controller.js';
import { StartJobService } from './start-job.service.js';
import { WAIT_RESULT_TIMEOUT_MS, WaitForResultService } from './wait-for-result.service.js';

export interface RunApiModuleOptions {
  /** Modules that export the engine's `JobsService` and `JobStore`, and the `EXPRESSION_SANDBOX`. */
  readonly imports: NonNullable<ModuleMetadata['imports']>;
}

/**
 * The orchestrator's run API: Windmill's jobs routes over HTTP (bearer tokens checked by the
 * registry), the `orchestrator.job.*` requests over NATS, the same over gRPC, and approvals (signed resume and
 * cancel links, the approval page, answering as a signed-in approver). It holds no state of its
 * own: every job read and write goes to the engine.
 */
@Module({})
export class RunApiModule {
  static forRoot(config: FlowOrchestratorConfig, options: RunApiModuleOptions): DynamicModule {
    return {
      module: RunApiModule,
      imports: [...options.imports],
      controllers: [
        RunJobsController,
        ReadJobsController,
        JobStreamController,
        ApproversController,
        ResumeSuspendedController,
        SignedApprovalsController,
        JobsHandler,
        // Served by the gRPC transport when FLOWMESH_GRPC_PORT is set (see grpc/).
        JobsGrpcController,
        ItemsGrpcController,
      ],
      providers: [
        { provide: AUTHENTICATION_CACHE, useValue: new AuthenticationCache(config.api.authCacheMs) },
        { provide: WAIT_RESULT_TIMEOUT_MS, useValue: config.api.waitResultTimeoutMs },
        { provide: PUBLIC_URL, useValue: config.api.publicUrl },
        { provide: ResumeSigner, useValue: new ResumeSigner(config.approvals.resumeKey) },
        { provide: ResumeFormValidator, useValue: new ResumeFormValidator() },
        { provide: JobsEngine, useClass: JobsEngineAdapter },
        SuspendedApprovalReader,
        AgentAnswers,
        RegistryAuthenticator,
        IdentityEventsListener,
        BearerAuthGuard,
        ActorCallerResolver,
        RegistryAccess,
        JobVisibility,
        StartJobService,
        JobsApi,
        JobWatch,
        WaitForResultService,
        ReadJobService,
        ListJobsService,
        CancelJobService,
        RequiredGroupsResolver,
        ResumeJobService,
        ResumeUrlsService,
        ApprovalPageService,
      ],
    };
  }
}
