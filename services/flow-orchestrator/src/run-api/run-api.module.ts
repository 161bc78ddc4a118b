import { Module, type DynamicModule, type ModuleMetadata } from '@nestjs/common';
import { JobVisibility } from '../access/job-visibility.service.js';
import { RegistryAccess } from '../access/registry-access.js';
import type { ApprovalsConfig } from '../approvals/approvals.config.js';
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
import type { ApiConfig } from '../http/api.config.js';
import { ActorCallerResolver } from '../http/actor-caller.resolver.js';
import { BearerAuthGuard } from '../http/bearer-auth.guard.js';
import { IdentityEventsListener } from '../http/identity-events.listener.js';
import {
  AUTHENTICATION_CACHE,
  identityCache,
  RegistryAuthenticator,
} from '../http/registry-authenticator.js';
import { CancelJobService } from './cancel-job.service.js';
import { JobStreamController } from './job-stream.controller.js';
import { JobsApi } from './jobs-api.service.js';
import { JobsHandler } from './jobs.handler.js';
import { ListJobsService } from './list-jobs.service.js';
import { ReadJobService } from './read-job.service.js';
import { RestartFlowService } from './restart-flow.service.js';
import { RunJobsController } from './run-jobs.controller.js';
import { ReadJobsController } from './read-jobs.controller.js';
import { WAIT_RESULT_TIMEOUT_MS, WaitForResultService } from './wait-for-result.service.js';

/** The largest request body, for routes that read a body no parser read (webhooks). */
export const HTTP_BODY_LIMIT_BYTES = Symbol('flow-orchestrator.http-body-limit-bytes');

/** The settings the run API reads: its HTTP edge and the signing key of approval links. */
export interface RunApiConfig {
  readonly api: ApiConfig;
  readonly approvals: ApprovalsConfig;
  /** The largest request body (a webhook's body that no parser read is read up to it). */
  readonly http: { readonly bodyLimitBytes: number };
}

export interface RunApiModuleOptions {
  /** Modules that export the jobs use cases, `JobQueries`, `JobWaiter`, `JobStore` and the `EXPRESSION_SANDBOX`. */
  readonly imports: NonNullable<ModuleMetadata['imports']>;
}

/**
 * The orchestrator's run API: Windmill's jobs routes over HTTP (bearer tokens checked by the
 * registry), the `orchestrator.job.*` requests over NATS, and approvals (signed resume and
 * cancel links, the approval page, answering as a signed-in approver). It holds no state of its
 * own: every job read and write goes to the engine's use cases and queries. The gRPC API
 * (`grpc/`) builds on what it exports.
 */
@Module({})
export class RunApiModule {
  static forRoot(config: RunApiConfig, options: RunApiModuleOptions): DynamicModule {
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
      ],
      providers: [
        { provide: AUTHENTICATION_CACHE, useValue: identityCache(config.api.authCacheMs) },
        { provide: WAIT_RESULT_TIMEOUT_MS, useValue: config.api.waitResultTimeoutMs },
        { provide: HTTP_BODY_LIMIT_BYTES, useValue: config.http.bodyLimitBytes },
        { provide: PUBLIC_URL, useValue: config.api.publicUrl },
        { provide: ResumeSigner, useValue: new ResumeSigner(config.approvals.resumeKey) },
        { provide: ResumeFormValidator, useValue: new ResumeFormValidator() },
        SuspendedApprovalReader,
        AgentAnswers,
        RegistryAuthenticator,
        IdentityEventsListener,
        BearerAuthGuard,
        ActorCallerResolver,
        RegistryAccess,
        JobVisibility,
        JobsApi,
        WaitForResultService,
        ReadJobService,
        ListJobsService,
        CancelJobService,
        RestartFlowService,
        RequiredGroupsResolver,
        ResumeJobService,
        ResumeUrlsService,
        ApprovalPageService,
      ],
      // The triggers' controllers (`triggers/`) authenticate and wait for results as these routes do.
      exports: [
        JobsApi,
        ActorCallerResolver,
        JobVisibility,
        WaitForResultService,
        BearerAuthGuard,
        RegistryAuthenticator,
        RegistryAccess,
        HTTP_BODY_LIMIT_BYTES,
      ],
    };
  }
}
