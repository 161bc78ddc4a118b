import { EXPRESSION_SANDBOX, type ExpressionSandbox } from '../ports/index.js';
import { MeshError } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { SuspendedApproval } from './suspended-approval.reader.js';

/**
 * `user_groups_required` as group names: a static list (or one name), or a JavaScript
 * expression evaluated in the expression sandbox with the flow's context (`flow_input`,
 * `results`, ...). `g/<name>` and `<name>` mean the same group.
 */
@Injectable()
export class RequiredGroupsResolver {
  constructor(@Inject(EXPRESSION_SANDBOX) private readonly sandbox: ExpressionSandbox) {}

  async resolve(approval: SuspendedApproval): Promise<string[]> {
    const transform = approval.suspend.user_groups_required;
    if (transform === undefined) return [];
    const value =
      transform.type === 'javascript'
        ? await this.sandbox.evaluate(transform.expr, approval.context, {
            fieldPath: `suspend.user_groups_required.expr of step ${approval.stepId}`,
          })
        : transform.type === 'static'
          ? transform.value
          : undefined;
    return groupNames(value, approval.stepId);
  }
}

export function groupNames(value: unknown, stepId: string): string[] {
  if (value === undefined || value === null || value === '') return [];
  const list = Array.isArray(value) ? value : [value];
  if (!list.every((item): item is string => typeof item === 'string')) {
    throw new MeshError(
      'VALIDATION_FAILED',
      `suspend.user_groups_required of step ${stepId} must give group names (a list of strings)`,
      { stepId },
    );
  }
  return list.map((name) => name.replace(/^g\//, '')).filter(Boolean);
}
