import type { CallerIdentity } from '@flowmesh/contracts';

/**
 * Resumes or disapproves a flow parked on an approval step. `jobId` may name the flow job or the
 * step job that suspended it. The HTTP layer has already verified a signed link or
 * authenticated the approver (`approverIdentity`, null for an anonymous signed link); the
 * engine applies the step's own rules (`user_auth_required`, `user_groups_required`,
 * `self_approval_disabled`) and the resume form.
 */
export interface ResumeCommand {
  readonly workspace: string;
  readonly jobId: string;
  readonly resumeId: number;
  /** Recorded in `flow_status.approvers` ("anonymous" when absent). */
  readonly approver?: string;
  readonly payload?: unknown;
  readonly approve: boolean;
  readonly approverIdentity: CallerIdentity | null;
}
