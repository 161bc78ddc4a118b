import { describe, expect, it } from 'vitest';
import { describeInit, describeRebuild } from './admin.command.js';

describe('describeInit', () => {
  const base = { workspace: 'main', username: 'admin', email: 'admin@example.test' };

  it('shows a generated token, once, when it created the admin', () => {
    expect(describeInit({ ...base, created: true, token: 'fm_abc' })).toBe(
      'created workspace "main" and its first admin admin@example.test (user admin); API token (shown once, keep it): fm_abc\n',
    );
  });

  it('never shows FLOWMESH_ADMIN_TOKEN, only that it is the token', () => {
    expect(describeInit({ ...base, created: true })).toBe(
      'created workspace "main" and its first admin admin@example.test (user admin); its token is FLOWMESH_ADMIN_TOKEN\n',
    );
  });

  it('says nothing was created on a second run', () => {
    expect(describeInit({ ...base, created: false })).toBe(
      'workspace "main" already has its first admin (admin@example.test); nothing created\n',
    );
  });
});

describe('describeRebuild', () => {
  it('says what was handed to dependency-locker', () => {
    expect(describeRebuild('main', { scripts: 2, flows: 0, agents: 1 })).toBe(
      'workspace "main": 2 scripts, 0 flows and 1 agents handed to dependency-locker, which maps and locks them in the background\n',
    );
  });
});
