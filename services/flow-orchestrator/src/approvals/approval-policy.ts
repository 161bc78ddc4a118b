import { MeshError } from '@flowmesh/contracts';
import type { SuspendedApproval } from './suspended-approval.reader.js';
import type { Approver } from './approver.js';

export interface ApprovalAnswer {
  readonly approve: boolean;
}

/**
 * The step's own rules for who may answer it:
 * - `user_auth_required`: only an authenticated user (not the holder of a signed link alone);
 * - an authenticated approver who is not a workspace admin is refused by `self_approval_disabled`
 *   when they started the flow, and by `user_groups_required` (resolved to group names) unless
 *   they are in one of them. A link holder who did not sign in cannot be told apart, so those
 *   two bind them only through `user_auth_required` (as in Windmill);
 * - `hide_cancel`: the step offers no way to disapprove, so a disapproval is refused.
 */
export function checkApprover(
  approval: SuspendedApproval,
  requiredGroups: readonly string[],
  approver: Approver,
  answer: ApprovalAnswer,
): void {
  const suspend = approval.suspend;
  if (!answer.approve && suspend.hide_cancel === true) {
    throw new MeshError(
      'PERMISSION_DENIED',
      `step ${approval.stepId} cannot be disapproved (hide_cancel); cancel the flow job ${approval.flowJobId} instead`,
      { stepId: approval.stepId },
    );
  }
  if (approver.kind !== 'user') {
    if (suspend.user_auth_required !== true) return;
    throw new MeshError(
      'UNAUTHENTICATED',
      `step ${approval.stepId} may be answered only by a signed-in user: send "Authorization: Bearer <token>" with the link`,
      { stepId: approval.stepId },
    );
  }
  if (approver.isAdmin) return;
  const starter =
    approver.name === approval.createdBy || (approver.email !== '' && approver.email === approval.email);
  if (suspend.self_approval_disabled === true && starter) {
    throw new MeshError(
      'PERMISSION_DENIED',
      `self-approval is disabled for step ${approval.stepId}: ${approver.name} started this flow`,
      { stepId: approval.stepId },
    );
  }
  if (requiredGroups.length > 0 && !requiredGroups.some((group) => approver.groups.includes(group))) {
    throw new MeshError(
      'PERMISSION_DENIED',
      `only members of ${requiredGroups.map((group) => `"${group}"`).join(', ')} may answer step ${approval.stepId}`,
      { stepId: approval.stepId, groups: requiredGroups },
    );
  }
}
