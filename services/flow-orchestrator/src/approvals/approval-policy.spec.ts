import { MeshError, type Suspend } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import type { SuspendedApproval } from './suspended-approval.reader.js';
import { checkApprover } from './approval-policy.js';
import type { Approver } from './approver.js';
import { groupNames } from './required-groups.resolver.js';

const approval = (suspend: Suspend): SuspendedApproval => ({
  flowJobId: 'f1',
  stepId: 'approve',
  stepJobId: undefined,
  suspend,
  createdBy: 'alice',
  email: 'alice@example.test',
  remaining: 1,
  context: {},
});
const user = (name: string, extra: Partial<Extract<Approver, { kind: 'user' }>> = {}): Approver => ({
  kind: 'user',
  name,
  email: `${name}@example.test`,
  isAdmin: false,
  groups: ['all'],
  ...extra,
});
const anonymous: Approver = { kind: 'anonymous', name: 'someone' };
const approve = { approve: true };

function codeOf(run: () => void): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof MeshError ? error.code : 'not a MeshError';
  }
}

describe('checkApprover', () => {
  it('lets anyone holding the link answer a step without conditions', () => {
    expect(codeOf(() => checkApprover(approval({}), [], anonymous, approve))).toBeUndefined();
    expect(codeOf(() => checkApprover(approval({}), [], anonymous, { approve: false }))).toBeUndefined();
  });

  it('asks for a signed-in user with user_auth_required', () => {
    const step = approval({ user_auth_required: true });
    expect(codeOf(() => checkApprover(step, [], anonymous, approve))).toBe('UNAUTHENTICATED');
    expect(codeOf(() => checkApprover(step, [], user('bob'), approve))).toBeUndefined();
  });

  it('refuses the flow starter with self_approval_disabled, by name or email, but not an admin', () => {
    const step = approval({ user_auth_required: true, self_approval_disabled: true });
    expect(codeOf(() => checkApprover(step, [], user('alice'), approve))).toBe('PERMISSION_DENIED');
    expect(codeOf(() => checkApprover(step, [], user('al', { email: 'alice@example.test' }), approve))).toBe(
      'PERMISSION_DENIED',
    );
    expect(codeOf(() => checkApprover(step, [], user('alice', { isAdmin: true }), approve))).toBeUndefined();
    expect(codeOf(() => checkApprover(step, [], user('bob'), approve))).toBeUndefined();
  });

  it('asks for one of the required groups', () => {
    const step = approval({ user_auth_required: true });
    expect(codeOf(() => checkApprover(step, ['finance'], user('bob'), approve))).toBe('PERMISSION_DENIED');
    expect(
      codeOf(() => checkApprover(step, ['finance'], user('bob', { groups: ['all', 'finance'] }), approve)),
    ).toBeUndefined();
  });

  it('refuses a disapproval when the step hides cancel', () => {
    const step = approval({ hide_cancel: true });
    expect(codeOf(() => checkApprover(step, [], anonymous, { approve: false }))).toBe('PERMISSION_DENIED');
    expect(codeOf(() => checkApprover(step, [], anonymous, approve))).toBeUndefined();
  });
});

describe('groupNames', () => {
  it('reads a list or one name, g/ prefixed or not, and refuses anything else', () => {
    expect(groupNames(['g/finance', 'ops'], 's')).toEqual(['finance', 'ops']);
    expect(groupNames('finance', 's')).toEqual(['finance']);
    expect(groupNames(undefined, 's')).toEqual([]);
    expect(() => groupNames([1], 's')).toThrow(/must give group names/);
  });
});
