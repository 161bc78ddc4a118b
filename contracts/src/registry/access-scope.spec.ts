import { describe, expect, it } from 'vitest';
import { MeshError } from '../errors.js';
import {
  formatScope,
  narrowScopes,
  parseScope,
  runScopeCovers,
  runScopesOf,
  scopeProblem,
  scopesAllow,
} from './access-scope.js';

describe('scopes', () => {
  it('parse domain:action[:resource]', () => {
    expect(parseScope('resources:read')).toEqual({ domain: 'resources', action: 'read' });
    expect(parseScope('flows:write:f/team/*')).toEqual({
      domain: 'flows',
      action: 'write',
      resource: 'f/team/*',
    });
  });

  it.each([
    ['resources', 'must be domain:action or domain:action:resource'],
    ['resources:read:f/a:b', 'must be domain:action or domain:action:resource'],
    ['stuff:read', 'unknown domain "stuff"'],
    ['resources:delete', 'unknown action "delete"'],
    ['resources:read:team/*', 'resource "team/*" must be a path under u/, f/ or g/'],
    ['resources:read:f/*/x', "with '*' only at the end"],
    ['resources:read:f//x', 'resource "f//x" must be a path'],
  ])('refuse %j', (scope, message) => {
    expect(scopeProblem(scope)).toContain(message);
    expect(() => parseScope(scope)).toThrow(MeshError);
  });

  it('absent scopes allow everything; present ones only what they say', () => {
    expect(scopesAllow(undefined, { domain: 'variables', action: 'write', path: 'u/a/x' })).toBe(true);
    expect(scopesAllow([], { domain: 'variables', action: 'read' })).toBe(false);
    const scopes = ['resources:read:f/team/*', 'flows:write'];
    expect(scopesAllow(scopes, { domain: 'resources', action: 'read', path: 'f/team/a' })).toBe(true);
    expect(scopesAllow(scopes, { domain: 'resources', action: 'read', path: 'f/teamwork/a' })).toBe(false);
    expect(scopesAllow(scopes, { domain: 'resources', action: 'write', path: 'f/team/a' })).toBe(false);
    expect(scopesAllow(scopes, { domain: 'resources', action: 'read' })).toBe(true);
    expect(scopesAllow(scopes, { domain: 'flows', action: 'read', path: 'u/x/y' })).toBe(true);
    expect(scopesAllow(scopes, { domain: 'flows', action: 'run', path: 'u/x/y' })).toBe(false);
  });

  it('only narrow', () => {
    expect(narrowScopes(undefined, undefined)).toBeUndefined();
    expect(narrowScopes(undefined, ['flows:write'])).toEqual(['flows:write']);
    expect(narrowScopes(['flows:write'], undefined)).toEqual(['flows:write']);
    expect(narrowScopes(['flows:write'], ['flows:read:f/a/*'])).toEqual(['flows:read:f/a/*']);
    expect(
      narrowScopes(['resources:read:f/team/*'], ['resources:read:f/team/sub/*', 'resources:read:f/team/x']),
    ).toEqual(['resources:read:f/team/sub/*', 'resources:read:f/team/x']);
    expect(narrowScopes(['flows:read'], [])).toEqual([]);
    for (const wider of [
      ['flows:write'],
      ['resources:read'],
      ['resources:read:f/*'],
      ['flows:run'],
      ['scripts:read'],
    ]) {
      expect(() => narrowScopes(['flows:read', 'resources:read:f/team/*'], wider)).toThrow(/can only narrow/);
    }
    expect(() => narrowScopes(['resources:read:f/team/x'], ['resources:read:f/team/x*'])).toThrow(MeshError);
  });

  it('jobs:run scopes name the paths a run token may start, and allow nothing else', () => {
    const scopes = ['jobs:run:f/team/*', 'jobs:run:u/alice/x', 'resources:read'];
    expect(runScopesOf(scopes)).toEqual(['jobs:run:f/team/*', 'jobs:run:u/alice/x']);
    expect(runScopesOf(undefined)).toEqual([]);
    expect(runScopeCovers(scopes, 'f/team/flow')).toBe(true);
    expect(runScopeCovers(scopes, 'u/alice/x')).toBe(true);
    expect(runScopeCovers(scopes, 'u/alice/y')).toBe(false);
    expect(runScopeCovers(undefined, 'f/team/flow')).toBe(false);
    expect(runScopeCovers(['jobs:run'], 'f/any/path')).toBe(true);
    // Running is not reading: `jobs:read` semantics are unchanged.
    expect(scopesAllow(['jobs:run:f/team/*'], { domain: 'jobs', action: 'read', path: 'f/team/flow' })).toBe(
      false,
    );
    expect(scopesAllow(['jobs:write'], { domain: 'jobs', action: 'run', path: 'f/team/flow' })).toBe(false);
  });

  it("reads Windmill's jobs:run:flows and jobs:run:scripts, each covering its own kind only", () => {
    expect(parseScope('jobs:run:flows:f/team/*')).toEqual({
      domain: 'jobs',
      action: 'run',
      runnable: 'flows',
      resource: 'f/team/*',
    });
    expect(formatScope(parseScope('jobs:run:scripts:u/a/x'))).toBe('jobs:run:scripts:u/a/x');
    expect(formatScope(parseScope('jobs:run:scripts'))).toBe('jobs:run:scripts');
    expect(scopeProblem('jobs:read:flows:f/x')).toContain('must be domain:action');
    expect(scopeProblem('resources:run:flows')).toContain('resource "flows" must be a path');
    const flowsOnly = ['jobs:run:flows:f/team/*'];
    expect(runScopeCovers(flowsOnly, 'f/team/x', 'flows')).toBe(true);
    expect(runScopeCovers(flowsOnly, 'f/team/x', 'scripts')).toBe(false);
    expect(runScopeCovers(['jobs:run:f/team/*'], 'f/team/x', 'scripts')).toBe(true);
    expect(narrowScopes(flowsOnly, ['jobs:run:flows:f/team/a'])).toEqual(['jobs:run:flows:f/team/a']);
    expect(narrowScopes(['jobs:run:f/team/*'], ['jobs:run:scripts:f/team/a'])).toEqual([
      'jobs:run:scripts:f/team/a',
    ]);
    expect(() => narrowScopes(flowsOnly, ['jobs:run:f/team/a'])).toThrow(MeshError);
    expect(() => narrowScopes(flowsOnly, ['jobs:run:scripts:f/team/a'])).toThrow(MeshError);
  });
});
