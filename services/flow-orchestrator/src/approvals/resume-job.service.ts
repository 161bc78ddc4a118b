import { MeshError, type ResumeOutcome } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { Caller } from '../http/caller.js';
import { RegistryAuthenticator } from '../http/registry-authenticator.js';
import { JobVisibility } from '../access/job-visibility.service.js';
import { ResumeJobUseCase } from '../jobs/resume-job.use-case.js';
import { checkApprover } from './approval-policy.js';
import type { Approver } from './approver.js';
import { RequiredGroupsResolver } from './required-groups.resolver.js';
import { AgentAnswers } from './agent-answers.service.js';
import { ResumeFormValidator } from './resume-form.validator.js';
import { ResumeSigner } from './resume-signer.js';
import type { SignedLink } from './signed-link.js';
import { SuspendedApprovalReader, type SuspendedApproval } from './suspended-approval.reader.js';

export interface ResumeAnswer {
  readonly approve: boolean;
  readonly payload: unknown;
}

/** How a mesh caller answers: as themselves, or (`authenticated` false) vouching for a link holder. */
export interface AnswerAs {
  readonly authenticated: boolean;
  /** The name recorded in `flow_status.approvers`; the caller's user name when absent. */
  readonly approver?: string;
}

/**
 * Answers a suspended step: through a signed link (anyone holding it, or, with
 * `user_auth_required`, a signed-in user holding it) or as a signed-in member of the workspace
 * who knows the job id. Either way the step's rules decide who may, an approval's payload must
 * fill the step's form, and the engine records the answer (`flow_status.approvers`, the next
 * step's `resume`). A job that does not wait for an approval is NOT_FOUND to an approver,
 * whether or not it exists. An AI step parked on its agent's request is answered through
 * agent-runtime (`AgentAnswers`), by whoever may read its job or holds a link to it (000 sends
 * none for it, but `resume_urls` of its job signs them as for any suspended job).
 */
@Injectable()
export class ResumeJobService {
  constructor(
    private readonly approvals: SuspendedApprovalReader,
    private readonly resumes: ResumeJobUseCase,
    private readonly signer: ResumeSigner,
    private readonly forms: ResumeFormValidator,
    private readonly groups: RequiredGroupsResolver,
    private readonly authenticator: RegistryAuthenticator,
    private readonly agents: AgentAnswers,
    private readonly visibility: JobVisibility,
  ) {}

  async bySignedLink(
    link: SignedLink,
    answer: ResumeAnswer,
    bearerToken: string | undefined,
  ): Promise<ResumeOutcome> {
    this.verify(link);
    const approval = await this.approvals.read(link.workspace, link.jobId);
    const identity =
      bearerToken === undefined ? null : await this.authenticator.authenticate(bearerToken, link.workspace);
    // Recorded as Windmill's `resume_suspended_job` records it: the approver the link was signed
    // for when it names one, whoever calls it; else the bearer's user name; else "anonymous". The
    // rules (who may approve, self-approval) judge the bearer, never the name on the link.
    const named = link.approver !== undefined && link.approver !== '' ? link.approver : undefined;
    const approver: Approver = identity
      ? userApprover(identity)
      : { kind: 'anonymous', name: named ?? 'anonymous' };
    const recordedAs = named ?? approver.name;
    if (approval)
      return this.answer(
        link.workspace,
        approval,
        link.jobId,
        link.resumeId,
        approver,
        identity,
        answer,
        recordedAs,
      );
    // An agent's request has no approver rules: the link (signed for a reader of the job) is the right.
    if (!(await this.agents.isParked(link.workspace, link.jobId))) throw notWaiting(link.jobId);
    return this.agents.answer(link.workspace, link.jobId, recordedAs, answer);
  }

  /** `POST jobs/flow/resume/:id`: the caller answers as themselves. */
  asUser(caller: Caller, jobId: string, resumeId: number, answer: ResumeAnswer): Promise<ResumeOutcome> {
    return this.asCaller(caller, jobId, resumeId, answer, { authenticated: true });
  }

  /** `orchestrator.job.resume`: as the caller, or for a link holder the caller vouches for. */
  async asCaller(
    caller: Caller,
    jobId: string,
    resumeId: number,
    answer: ResumeAnswer,
    as: AnswerAs,
  ): Promise<ResumeOutcome> {
    const workspace = caller.identity.workspace;
    const approval = await this.approvals.read(workspace, jobId);
    if (!approval) return this.answerAgent(caller, jobId, answer, as);
    if (!as.authenticated) {
      const approver: Approver = { kind: 'anonymous', name: as.approver ?? 'anonymous' };
      return this.answer(workspace, approval, jobId, resumeId, approver, null, answer);
    }
    const approver = { ...userApprover(caller.identity), name: as.approver ?? caller.identity.username };
    return this.answer(workspace, approval, jobId, resumeId, approver, caller.identity, answer);
  }

  /**
   * An AI step parked on its agent's request, which whoever may read the job answers (as
   * themselves, or vouching for a link holder); else not waiting.
   */
  private async answerAgent(
    caller: Caller,
    jobId: string,
    answer: ResumeAnswer,
    as: AnswerAs,
  ): Promise<ResumeOutcome> {
    const workspace = caller.identity.workspace;
    if (!(await this.agents.isParked(workspace, jobId))) throw notWaiting(jobId);
    // Who may not read the job (and so not see the request) may not answer it: NOT_FOUND, as a read.
    await this.visibility.readable(caller, jobId).catch((error: unknown) => {
      throw error instanceof MeshError && error.code === 'NOT_FOUND' ? notWaiting(jobId) : error;
    });
    const approver = as.authenticated
      ? (as.approver ?? caller.identity.username)
      : (as.approver ?? 'anonymous');
    return this.agents.answer(workspace, jobId, approver, answer);
  }

  /** The step a valid link answers; a bad signature is refused before anything about the job is said. */
  async signedApproval(link: SignedLink): Promise<SuspendedApproval> {
    this.verify(link);
    const approval = await this.approvals.read(link.workspace, link.jobId);
    if (!approval) throw notWaiting(link.jobId);
    return approval;
  }

  private verify(link: SignedLink): void {
    if (!this.signer.verify(link.workspace, link.jobId, link.resumeId, link.approver, link.signature))
      throw new MeshError('PERMISSION_DENIED', 'the link is not valid: its signature does not match', {
        id: link.jobId,
      });
  }

  private async answer(
    workspace: string,
    approval: SuspendedApproval,
    jobId: string,
    resumeId: number,
    approver: Approver,
    approverIdentity: Caller['identity'] | null,
    answer: ResumeAnswer,
    recordedAs: string = approver.name,
  ): Promise<ResumeOutcome> {
    const groups = approver.kind === 'user' ? await this.groups.resolve(approval) : [];
    checkApprover(approval, groups, approver, answer);
    const schema = approval.suspend.resume_form?.schema;
    const payload = answer.payload === undefined ? {} : answer.payload;
    if (answer.approve && schema !== undefined) this.forms.validate(schema, payload);
    return this.resumes.resume({
      workspace,
      jobId,
      resumeId,
      approver: recordedAs,
      payload,
      approve: answer.approve,
      approverIdentity,
    });
  }
}

function userApprover(identity: Caller['identity']): Approver {
  return {
    kind: 'user',
    name: identity.username,
    email: identity.email,
    isAdmin: identity.isAdmin,
    groups: identity.groups,
  };
}

function notWaiting(jobId: string): MeshError {
  return new MeshError('NOT_FOUND', `job ${jobId} not found, or not waiting for an approval`, { id: jobId });
}
