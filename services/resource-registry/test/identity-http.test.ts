import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegistryCast, type RegistryCast } from './support/registry-cast.js';

let cast: RegistryCast;

beforeAll(async () => {
  cast = await startRegistryCast();
});

afterAll(async () => {
  await cast?.stop();
});

const token = (name: keyof RegistryCast['actors']) => cast.actors[name].token;

describe('identity over HTTP (/api/w/:workspace/...)', () => {
  it('needs a bearer token: 401 with the error envelope, never echoing the token', async () => {
    expect(await cast.http('GET', '/api/w/main/users/whoami')).toEqual({
      status: 401,
      body: {
        code: 'UNAUTHENTICATED',
        message: 'missing bearer token: send the header "Authorization: Bearer <token>"',
      },
    });
    const bad = await cast.http('GET', '/api/w/main/users/whoami', 'fm_not-a-real-token');
    expect(bad).toEqual({ status: 401, body: { code: 'UNAUTHENTICATED', message: 'the token is invalid' } });
    expect(await cast.http('GET', '/api/w/main/folders/list', token('revoked'))).toMatchObject({
      status: 401,
    });
    expect(await cast.http('GET', '/api/workspaces/list', token('expired'))).toMatchObject({ status: 401 });
  });

  it('users/whoami, users/list, users/get in snake_case', async () => {
    expect(await cast.http('GET', '/api/w/main/users/whoami', token('member'))).toEqual({
      status: 200,
      body: {
        workspace_id: 'main',
        kind: 'user',
        username: 'member',
        email: 'member@example.test',
        is_admin: false,
        groups: ['all', 'devs'],
      },
    });
    const job = await cast.http('GET', '/api/w/main/users/whoami', token('job'));
    expect(job.body).toMatchObject({
      kind: 'job',
      username: 'owner',
      job_id: 'job-cast',
      on_behalf_of: 'u/owner',
    });
    const list = await cast.http('GET', '/api/w/main/users/list', token('stranger'));
    expect((list.body as Array<{ username: string }>).map((u) => u.username)).toEqual(
      expect.arrayContaining(['admin', 'member', 'owner', 'reader', 'stranger', 'writer']),
    );
    expect(await cast.http('GET', '/api/w/main/users/get/owner', token('stranger'))).toMatchObject({
      status: 200,
      body: { username: 'owner', is_admin: false, created_at: expect.any(String) as unknown },
    });
    expect(await cast.http('GET', '/api/w/main/users/get/ghost', token('stranger'))).toMatchObject({
      status: 404,
    });
  });

  it('users/add, update, delete: admins only (403 for others)', async () => {
    const body = { email: 'newbie@example.test', username: 'newbie' };
    expect(await cast.http('POST', '/api/w/main/users/add', token('owner'), body)).toMatchObject({
      status: 403,
      body: { code: 'PERMISSION_DENIED', message: 'only workspace admins may add users' },
    });
    expect(await cast.http('POST', '/api/w/main/users/add', token('admin'), body)).toMatchObject({
      status: 201,
      body: { username: 'newbie', is_admin: false, groups: ['all'] },
    });
    expect(
      await cast.http('POST', '/api/w/main/users/update/newbie', token('admin'), { is_admin: true }),
    ).toMatchObject({
      status: 201,
      body: { is_admin: true },
    });
    expect(await cast.http('DELETE', '/api/w/main/users/delete/newbie', token('admin'))).toEqual({
      status: 200,
      body: { done: true },
    });
    expect(await cast.http('DELETE', '/api/w/main/users/delete/admin', token('admin'))).toMatchObject({
      status: 409,
    });
  });

  it('groups: list, get, create, adduser, removeuser, delete', async () => {
    expect(
      await cast.http('POST', '/api/w/main/groups/create', token('admin'), {
        name: 'ops',
        summary: 'on call',
      }),
    ).toMatchObject({
      status: 201,
      body: { name: 'ops', summary: 'on call', members: [] },
    });
    expect(
      await cast.http('POST', '/api/w/main/groups/adduser/ops', token('admin'), { username: 'reader' }),
    ).toMatchObject({
      body: { members: ['reader'] },
    });
    expect(
      await cast.http('POST', '/api/w/main/groups/adduser/ops', token('reader'), { username: 'reader' }),
    ).toMatchObject({ status: 403 });
    const list = await cast.http('GET', '/api/w/main/groups/list', token('reader'));
    expect((list.body as Array<{ name: string }>).map((g) => g.name)).toEqual(
      expect.arrayContaining(['devs', 'ops']),
    );
    expect(
      await cast.http('POST', '/api/w/main/groups/removeuser/ops', token('admin'), { username: 'reader' }),
    ).toMatchObject({
      body: { members: [] },
    });
    expect(await cast.http('DELETE', '/api/w/main/groups/delete/ops', token('admin'))).toEqual({
      status: 200,
      body: { done: true },
    });
    expect(await cast.http('GET', '/api/w/main/groups/get/ops', token('admin'))).toMatchObject({
      status: 404,
    });
  });

  it('folders: a hidden folder answers exactly as a missing one', async () => {
    const hidden = await cast.http('GET', '/api/w/main/folders/get/team', token('stranger'));
    const missing = await cast.http('GET', '/api/w/main/folders/get/nope', token('stranger'));
    expect(hidden).toEqual({
      status: 404,
      body: { code: 'NOT_FOUND', message: 'folder "team" not found', details: { name: 'team' } },
    });
    expect(missing).toEqual({
      status: 404,
      body: { code: 'NOT_FOUND', message: 'folder "nope" not found', details: { name: 'nope' } },
    });
    expect(await cast.http('GET', '/api/w/main/folders/get/team', token('reader'))).toMatchObject({
      status: 200,
      body: { name: 'team', owners: ['u/owner'], writers: ['u/writer', 'g/devs'], readers: ['u/reader'] },
    });
  });

  it('folders: create makes the caller an owner; update and delete are for owners', async () => {
    const created = await cast.http('POST', '/api/w/main/folders/create', token('writer'), {
      name: 'mine',
      readers: ['g/devs'],
    });
    expect(created).toMatchObject({
      status: 201,
      body: { name: 'mine', owners: ['u/writer'], readers: ['g/devs'] },
    });
    expect(
      await cast.http('POST', '/api/w/main/folders/update/mine', token('member'), { summary: 'x' }),
    ).toMatchObject({ status: 403 });
    expect(
      await cast.http('POST', '/api/w/main/folders/update/mine', token('stranger'), { summary: 'x' }),
    ).toMatchObject({ status: 404 });
    expect(
      await cast.http('POST', '/api/w/main/folders/update/mine', token('writer'), {
        summary: 'x',
        writers: ['u/owner'],
      }),
    ).toMatchObject({
      status: 201,
      body: { summary: 'x', writers: ['u/owner'] },
    });
    const listed = await cast.http('GET', '/api/w/main/folders/list', token('owner'));
    expect((listed.body as Array<{ name: string }>).map((f) => f.name)).toEqual(
      expect.arrayContaining(['mine', 'team']),
    );
    expect(await cast.http('DELETE', '/api/w/main/folders/delete/mine', token('writer'))).toEqual({
      status: 200,
      body: { done: true },
    });
  });

  it('tokens: create shows the token once, list never, delete revokes', async () => {
    const created = await cast.http('POST', '/api/w/main/tokens/create', token('reader'), {
      label: 'ci',
      scopes: ['resources:read'],
      expiration: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(created.status).toBe(201);
    const { token: secret, token_prefix: prefix } = created.body as { token: string; token_prefix: string };
    expect(created.body).toMatchObject({
      label: 'ci',
      scopes: ['resources:read'],
      email: 'reader@example.test',
    });
    const listed = await cast.http('GET', '/api/w/main/tokens/list', token('reader'));
    expect(listed.body).toContainEqual(expect.objectContaining({ token_prefix: prefix, label: 'ci' }));
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect(await cast.http('GET', '/api/w/main/users/whoami', secret)).toMatchObject({
      status: 200,
      body: { scopes: ['resources:read'] },
    });
    expect(await cast.http('DELETE', `/api/w/main/tokens/delete/${prefix}`, token('owner'))).toMatchObject({
      status: 404,
    });
    expect(await cast.http('DELETE', `/api/w/main/tokens/delete/${prefix}`, token('reader'))).toEqual({
      status: 200,
      body: { done: true },
    });
    expect(await cast.http('GET', '/api/w/main/users/whoami', secret)).toMatchObject({ status: 401 });
  });

  it('/api/workspaces/list and create', async () => {
    expect(await cast.http('GET', '/api/workspaces/list', token('owner'))).toMatchObject({
      status: 200,
      body: [{ id: 'main', name: 'main' }],
    });
    expect(
      await cast.http('POST', '/api/workspaces/create', token('owner'), { id: 'dev', name: 'Dev' }),
    ).toMatchObject({ status: 403 });
    expect(
      await cast.http('POST', '/api/workspaces/create', token('admin'), { id: 'dev', name: 'Dev' }),
    ).toMatchObject({
      status: 201,
      body: { id: 'dev', name: 'Dev' },
    });
    expect(await cast.http('GET', '/api/w/dev/users/whoami', token('admin'))).toMatchObject({
      body: { username: 'admin', is_admin: true },
    });
    expect(await cast.http('GET', '/api/w/dev/users/whoami', token('owner'))).toMatchObject({ status: 401 });
  });
});
