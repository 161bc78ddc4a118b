import { describe, expect, it } from 'vitest';
import type { SuspendedApproval } from './suspended-approval.reader.js';
import { QuickJsExpressionSandbox } from '../sandbox/quickjs-expression.sandbox.js';
import { RequiredGroupsResolver } from './required-groups.resolver.js';

const approval = (userGroupsRequired: unknown): SuspendedApproval =>
  ({
    flowJobId: 'f1',
    stepId: 'ask',
    stepJobId: undefined,
    suspend: { user_groups_required: userGroupsRequired },
    createdBy: 'alice',
    email: '',
    remaining: 1,
    context: { flow_input: { team: 'finance' }, results: { ask: ['ops'] } },
  }) as SuspendedApproval;

describe('RequiredGroupsResolver', () => {
  const resolver = new RequiredGroupsResolver(new QuickJsExpressionSandbox());

  it('reads a static list, and none when the step names none', async () => {
    expect(await resolver.resolve(approval({ type: 'static', value: ['g/approvers', 'ops'] }))).toEqual([
      'approvers',
      'ops',
    ]);
    expect(await resolver.resolve(approval(undefined))).toEqual([]);
  });

  it('evaluates an expression in the sandbox over the flow input and results', async () => {
    expect(
      await resolver.resolve(approval({ type: 'javascript', expr: '[flow_input.team, ...results.ask]' })),
    ).toEqual(['finance', 'ops']);
  });

  it('names the step when the expression fails or gives something else than names', async () => {
    await expect(resolver.resolve(approval({ type: 'javascript', expr: 'nope.x' }))).rejects.toThrow(
      /suspend\.user_groups_required\.expr of step ask/,
    );
    await expect(resolver.resolve(approval({ type: 'javascript', expr: '[1, 2]' }))).rejects.toThrow(
      /must give group names/,
    );
  });
});
