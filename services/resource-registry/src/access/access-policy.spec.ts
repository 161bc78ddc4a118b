import { parseItemPath, type CallerIdentity } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { effectiveAccess, folderRole, ownershipAccess, type FolderRoles } from './access-policy.js';

const person = (username: string, extra: Partial<CallerIdentity> = {}): CallerIdentity => ({
  workspace: 'main',
  kind: 'user',
  username,
  email: `${username}@example.test`,
  isAdmin: false,
  groups: ['all'],
  ...extra,
});

const team: FolderRoles = {
  owners: ['u/olga'],
  writers: ['u/wim', 'g/devs'],
  readers: ['u/rita', 'g/all-readers'],
};
const path = (p: string) => parseItemPath(p);

describe('ownership', () => {
  it('u/<user>/ belongs to that user alone; admins may do everything', () => {
    expect(ownershipAccess(person('alice'), path('u/alice/x'), undefined)).toBe('write');
    expect(ownershipAccess(person('bob'), path('u/alice/x'), undefined)).toBe('none');
    expect(ownershipAccess(person('root', { isAdmin: true }), path('u/alice/x'), undefined)).toBe('write');
  });

  it('f/<folder>/ follows the folder roles, groups included', () => {
    expect(ownershipAccess(person('olga'), path('f/team/x'), team)).toBe('write');
    expect(ownershipAccess(person('wim'), path('f/team/x'), team)).toBe('write');
    expect(ownershipAccess(person('dan', { groups: ['all', 'devs'] }), path('f/team/x'), team)).toBe('write');
    expect(ownershipAccess(person('rita'), path('f/team/x'), team)).toBe('read');
    expect(ownershipAccess(person('zed'), path('f/team/x'), team)).toBe('none');
    expect(ownershipAccess(person('zed'), path('f/gone/x'), undefined)).toBe('none');
  });

  it('the strongest role wins', () => {
    expect(folderRole(person('rita', { groups: ['all', 'devs'] }), team)).toBe('writer');
    expect(folderRole(person('olga', { groups: ['devs'] }), team)).toBe('owner');
  });

  it('a job acting as a group has that group’s rights and no user’s', () => {
    const job = person('g/devs', { kind: 'job', email: '', groups: ['all', 'devs'], onBehalfOf: 'g/devs' });
    expect(ownershipAccess(job, path('f/team/x'), team)).toBe('write');
    expect(ownershipAccess(job, path('u/devs/x'), undefined)).toBe('none');
  });
});

describe('scopes narrow ownership', () => {
  it('read scope: read only; path scope: matching paths only; other domain: nothing', () => {
    const alice = person('alice', { scopes: ['resources:read:u/alice/shared/*'] });
    expect(effectiveAccess(alice, path('u/alice/shared/a'), 'u/alice/shared/a', undefined, 'resources')).toBe(
      'read',
    );
    expect(effectiveAccess(alice, path('u/alice/private'), 'u/alice/private', undefined, 'resources')).toBe(
      'none',
    );
    expect(effectiveAccess(alice, path('u/alice/shared/a'), 'u/alice/shared/a', undefined, 'variables')).toBe(
      'none',
    );
    // Without a domain, any domain's scope counts.
    expect(effectiveAccess(alice, path('u/alice/shared/a'), 'u/alice/shared/a', undefined, undefined)).toBe(
      'read',
    );
  });

  it('a write scope never grants more than ownership', () => {
    const rita = person('rita', { scopes: ['resources:write'] });
    expect(effectiveAccess(rita, path('f/team/x'), 'f/team/x', team, 'resources')).toBe('read');
  });
});
