import { describe, expect, it } from 'vitest';
import { MeshError } from '../errors.js';
import { narrowScopes, runScopeCovers, scopeProblem, scopesAllow } from './access-scope.js';
import { mcpScopeCovers, mcpScopeOf, mcpScopeProblem } from './mcp-scope.js';

describe('MCP scopes (Windmill’s)', () => {
  it('read mcp:all, mcp:all:<pattern>, mcp:scripts:<list> and mcp:flows:<list>', () => {
    expect(mcpScopeOf(['mcp:all'])).toEqual({ scripts: ['*'], flows: ['*'] });
    expect(mcpScopeOf(['mcp:all:f/team/*'])).toEqual({ scripts: ['f/team/*'], flows: ['f/team/*'] });
    expect(mcpScopeOf(['mcp:scripts:u/admin/a, u/admin/b', 'mcp:flows:f/ops/*', 'jobs:read'])).toEqual({
      scripts: ['u/admin/a', 'u/admin/b'],
      flows: ['f/ops/*'],
    });
    expect(mcpScopeOf(['jobs:read'])).toBeUndefined();
    expect(mcpScopeOf(undefined)).toBeUndefined();
  });

  it.each([
    ['mcp:favorites', 'no favorites'],
    ['mcp:hub:slack', 'no hub'],
    ['mcp:endpoints:list_jobs', 'not API endpoints'],
    ['mcp:scripts:', 'names no path'],
    ['mcp:scripts:team/x', 'must be a path under u/ or f/'],
    ['mcp:flows:f/team*', 'must be a path under u/ or f/'],
    ['mcp:flows:f//x', 'must be a path under u/ or f/'],
    ['mcp:everything', 'an MCP scope is mcp:all'],
  ])('refuse %j, saying why', (scope, reason) => {
    expect(mcpScopeProblem(scope)).toContain(reason);
    expect(scopeProblem(scope)).toContain(reason);
    expect(() => narrowScopes(undefined, [scope])).toThrow(MeshError);
  });

  it('match a path, a prefix at a "/" boundary, or everything', () => {
    const scopes = ['mcp:scripts:u/admin/a,f/team/*', 'mcp:flows:u/al/*'];
    expect(mcpScopeCovers(scopes, 'u/admin/a', 'scripts')).toBe(true);
    expect(mcpScopeCovers(scopes, 'u/admin/a', 'flows')).toBe(false);
    expect(mcpScopeCovers(scopes, 'f/team/x/y', 'scripts')).toBe(true);
    expect(mcpScopeCovers(scopes, 'f/teamwork/x', 'scripts')).toBe(false);
    expect(mcpScopeCovers(scopes, 'u/alice/x', 'flows')).toBe(false);
    expect(mcpScopeCovers(scopes, 'u/al/x', 'flows')).toBe(true);
    expect(mcpScopeCovers(['mcp:all'], 'u/anyone/x')).toBe(true);
  });

  it('allow reading and running the items they name, and nothing else', () => {
    const scopes = ['mcp:scripts:u/admin/a', 'mcp:flows:f/ops/*'];
    expect(scopesAllow(scopes, { domain: 'scripts', action: 'read', path: 'u/admin/a' })).toBe(true);
    expect(scopesAllow(scopes, { domain: 'scripts', action: 'read' })).toBe(true);
    expect(scopesAllow(scopes, { domain: 'scripts', action: 'read', path: 'u/admin/b' })).toBe(false);
    expect(scopesAllow(scopes, { domain: 'scripts', action: 'write', path: 'u/admin/a' })).toBe(false);
    expect(scopesAllow(scopes, { domain: 'flows', action: 'read', path: 'u/admin/a' })).toBe(false);
    expect(scopesAllow(scopes, { domain: 'variables', action: 'read' })).toBe(false);
    expect(scopesAllow(scopes, { domain: 'jobs', action: 'read' })).toBe(false);
    expect(runScopeCovers(scopes, 'u/admin/a', 'scripts')).toBe(true);
    expect(runScopeCovers(scopes, 'u/admin/a', 'flows')).toBe(false);
    expect(runScopeCovers(scopes, 'f/ops/nightly', 'flows')).toBe(true);
    expect(runScopeCovers(scopes, 'f/other/x')).toBe(false);
  });

  it('only narrow: a token made by an MCP token names no more than it', () => {
    expect(narrowScopes(undefined, ['mcp:all'])).toEqual(['mcp:all']);
    expect(narrowScopes(['mcp:all:f/team/*'], ['mcp:flows:f/team/x'])).toEqual(['mcp:flows:f/team/x']);
    expect(() => narrowScopes(['mcp:all:f/team/*'], ['mcp:all'])).toThrow(/is not within/);
    expect(() => narrowScopes(['mcp:scripts:u/a/x'], ['mcp:flows:u/a/x'])).toThrow(/is not within/);
    expect(() => narrowScopes(['jobs:run'], ['mcp:all'])).toThrow(/is not within/);
    expect(narrowScopes(['mcp:all', 'jobs:read'], ['jobs:read'])).toEqual(['jobs:read']);
  });
});
