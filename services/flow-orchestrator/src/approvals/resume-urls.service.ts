import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '../http/caller.js';
import { JobVisibility } from '../access/job-visibility.service.js';
import { ResumeSigner } from './resume-signer.js';

export const PUBLIC_URL = Symbol('flow-orchestrator.public-url');

/** Windmill's `resume_urls`: the approval page and the signed links to approve or disapprove. */
export interface ResumeUrls {
  readonly approvalPage: string;
  readonly resume: string;
  readonly cancel: string;
}

/**
 * Signed links for one approver of a job, for whoever may read the job (a step's own job token
 * asks for them before its flow parks). The links work without a token: hand them only to the
 * approver they name.
 */
@Injectable()
export class ResumeUrlsService {
  constructor(
    private readonly visibility: JobVisibility,
    private readonly signer: ResumeSigner,
    @Inject(PUBLIC_URL) private readonly publicUrl: string,
  ) {}

  async urls(
    caller: Caller,
    jobId: string,
    resumeId: number,
    approver: string | undefined,
  ): Promise<ResumeUrls> {
    await this.visibility.readable(caller, jobId);
    const workspace = caller.identity.workspace;
    const signature = this.signer.sign(workspace, jobId, resumeId, approver);
    const query = approver === undefined ? '' : `?approver=${encodeURIComponent(approver)}`;
    const link = (route: string) =>
      `${this.publicUrl}/api/w/${encodeURIComponent(workspace)}/jobs_u/${route}/${jobId}/${resumeId}/${signature}${query}`;
    return { approvalPage: link('approval_page'), resume: link('resume'), cancel: link('cancel') };
  }
}
