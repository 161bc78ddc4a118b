import { Injectable } from '@nestjs/common';
import { renderApprovalPage } from './approval-page.renderer.js';
import { ResumeJobService } from './resume-job.service.js';
import type { SignedLink } from './signed-link.js';

/** The HTML approval page behind a signed link: the step, its form, approve and (unless hidden) disapprove. */
@Injectable()
export class ApprovalPageService {
  constructor(private readonly resumes: ResumeJobService) {}

  async render(link: SignedLink): Promise<string> {
    const approval = await this.resumes.signedApproval(link);
    const query = link.approver === undefined ? '' : `?approver=${encodeURIComponent(link.approver)}`;
    // Same-origin paths: the page posts back to whichever address served it.
    const path = (route: string) =>
      `/api/w/${encodeURIComponent(link.workspace)}/jobs_u/${route}/${link.jobId}/${link.resumeId}/${link.signature}${query}`;
    return renderApprovalPage({
      approval,
      approver: link.approver,
      resumeUrl: path('resume'),
      cancelUrl: approval.suspend.hide_cancel === true ? undefined : path('cancel'),
    });
  }
}
