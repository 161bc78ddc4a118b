import { createHash } from 'node:crypto';
import { MeshError } from '@flowmesh/contracts';
import { waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeOf } from './support/permission-matrix.js';
import { FOLDER, startRegistryCast, type RegistryCast } from './support/registry-cast.js';

let cast: RegistryCast;

beforeAll(async () => {
  cast = await startRegistryCast();
});

afterAll(async () => {
  await cast?.stop();
});

const main = (token: string) => ({ actor: { token }, workspace: 'main' });
const adminToken = () => cast.actors.admin.token;
const ownerToken = () => cast.actors.owner.token;

async function errorOf(action: () => Promise<unknown>): Promise<MeshError> {
  const error = await action().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof MeshError)) throw new Error(`expected a MeshError, got ${String(error)}`);
  return error;
}

describe('API tokens', () => {
  it('are stored as a SHA-256 hash only: no column of any token row holds the token', async () => {
    const created = await cast.http('POST', '/api/w/main/tokens/create', ownerToken(), {
      label: 'hash check',
    });
    expect(created.status).toBe(201);
    const { token, token_prefix: prefix } = created.body as { token: string; token_prefix: string };
    expect(token).toMatch(/^fm_[A-Za-z0-9_-]{43}$/);
    expect(token.startsWith(prefix)).toBe(true);

    const rows: Array<Record<string, unknown>> = await cast.dataSource.query(
      `SELECT * FROM api_token WHERE prefix = $1`,
      [prefix],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    const everything = JSON.stringify(await cast.dataSource.query(`SELECT * FROM api_token`));
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(token.slice(prefix.length));

    const listed = await cast.http('GET', '/api/w/main/tokens/list', ownerToken());
    expect(JSON.stringify(listed.body)).not.toContain(token);
    expect(listed.body).toContainEqual(
      expect.objectContaining({ token_prefix: prefix, label: 'hash check', expiration: null }),
    );
  });

  it('revoked: refused at once, and gone from the list', async () => {
    const { token, prefix } = await cast.registry.createApiToken({
      ...main(ownerToken()),
      label: 'short-lived',
    });
    expect(await cast.registry.whoami(main(token))).toMatchObject({ username: 'owner' });
    await cast.registry.revokeApiToken({ ...main(ownerToken()), prefix });
    expect(await errorOf(() => cast.registry.whoami(main(token)))).toMatchObject({
      code: 'UNAUTHENTICATED',
      message: 'the token was revoked',
    });
    const { tokens } = await cast.registry.listApiTokens(main(ownerToken()));
    expect(tokens.map((t) => t.prefix)).not.toContain(prefix);
  });

  it('expired: refused', async () => {
    expect(await errorOf(() => cast.registry.whoami(main(cast.actors.expired.token)))).toMatchObject({
      code: 'UNAUTHENTICATED',
      message: 'the token has expired',
    });
  });

  it('scoped: resources:read:f/team/* reads f/team/ items only and writes nothing', async () => {
    const { token } = await cast.registry.createApiToken({
      ...main(ownerToken()),
      scopes: ['resources:read:f/team/*'],
    });
    const check = async (path: string, action: 'read' | 'write') =>
      (await cast.registry.checkAccess({ ...main(token), path, action, domain: 'resources' })).allowed;
    expect(await check('f/team/a', 'read')).toBe(true);
    expect(await check('f/team/sub/b', 'read')).toBe(true);
    expect(await check('f/team/a', 'write')).toBe(false);
    expect(await check('u/owner/a', 'read')).toBe(false);
    expect(
      (
        await cast.registry.checkAccess({
          ...main(token),
          path: 'f/team/a',
          action: 'read',
          domain: 'variables',
        })
      ).allowed,
    ).toBe(false);
    expect(await outcomeOf(() => cast.registry.listFolders(main(token)))).toBe('PERMISSION_DENIED');

    // Without tokens:write it cannot make tokens at all.
    expect(
      await errorOf(() =>
        cast.registry.createApiToken({ ...main(token), scopes: ['resources:read:f/team/x'] }),
      ),
    ).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: "the token's scopes (resources:read:f/team/*) do not allow tokens:write",
    });
  });

  it('scoped with tokens:write: makes tokens with narrower scopes only', async () => {
    const { token } = await cast.registry.createApiToken({
      ...main(ownerToken()),
      scopes: ['tokens:write', 'resources:write:f/team/*'],
    });
    const narrower = await cast.registry.createApiToken({
      ...main(token),
      scopes: ['resources:read:f/team/x'],
    });
    expect(narrower.scopes).toEqual(['resources:read:f/team/x']);
    expect(await cast.registry.whoami(main(narrower.token))).toMatchObject({
      scopes: ['resources:read:f/team/x'],
    });
    const wider = await errorOf(() =>
      cast.registry.createApiToken({ ...main(token), scopes: ['resources:write'] }),
    );
    expect(wider).toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(wider.message).toContain('scope "resources:write" is not within the caller\'s scopes');
    // Asking for no scopes gets the creator's, never an unrestricted token.
    expect((await cast.registry.createApiToken(main(token))).scopes).toEqual([
      'tokens:write',
      'resources:write:f/team/*',
    ]);
  });

  it('work only in the workspace they were made in, so a workspace admin cannot reach another workspace', async () => {
    // stranger administers "side", where owner is a member too.
    await cast.registry.createWorkspace({ actor: { token: adminToken() }, id: 'side', name: 'Side' });
    const side = (token: string) => ({ actor: { token }, workspace: 'side' });
    await cast.registry.addUser({
      ...side(adminToken()),
      email: 'stranger@example.test',
      username: 'stranger',
      isAdmin: true,
    });
    const strangerInSide = await cast.registry.createApiToken({
      ...side(adminToken()),
      username: 'stranger',
    });
    await cast.registry.addUser({
      ...side(strangerInSide.token),
      email: 'owner@example.test',
      username: 'owner',
    });
    const forOwner = await cast.registry.createApiToken({ ...side(strangerInSide.token), username: 'owner' });
    expect(forOwner.workspace).toBe('side');

    expect(await cast.registry.whoami(side(forOwner.token))).toMatchObject({
      username: 'owner',
      workspace: 'side',
    });
    expect(await errorOf(() => cast.registry.whoami(main(forOwner.token)))).toMatchObject({
      code: 'UNAUTHENTICATED',
      message: 'the token is not valid in workspace "main"',
    });
    expect(await errorOf(() => cast.registry.whoami(side(ownerToken())))).toMatchObject({
      code: 'UNAUTHENTICATED',
    });
    const listed = await cast.registry.listWorkspaces({ actor: { token: forOwner.token } });
    expect(listed.workspaces.map((w) => w.id)).toEqual(['side']);
    expect(
      await errorOf(() =>
        cast.registry.createWorkspace({ actor: { token: strangerInSide.token }, id: 'x', name: 'x' }),
      ),
    ).toMatchObject({
      code: 'PERMISSION_DENIED',
    });
  });

  it('an admin makes tokens for other members; others may not', async () => {
    const made = await cast.registry.createApiToken({ ...main(adminToken()), username: 'reader' });
    expect(await cast.registry.whoami(main(made.token))).toMatchObject({
      username: 'reader',
      isAdmin: false,
    });
    expect(
      await outcomeOf(() => cast.registry.createApiToken({ ...main(ownerToken()), username: 'reader' })),
    ).toBe('PERMISSION_DENIED');
  });
});

describe('job tokens', () => {
  const issue = (token: string, onBehalfOf: string, extra: { scopes?: string[]; ttlSeconds?: number } = {}) =>
    cast.registry.issueJobToken({
      ...main(token),
      jobId: 'job-1',
      onBehalfOf,
      ttlSeconds: extra.ttlSeconds ?? 300,
      ...extra,
    });

  it('carry the job and its principal; scopes default to the issuer’s', async () => {
    const { token, expiresAt } = await issue(ownerToken(), 'u/owner');
    expect(token.startsWith('fmj_')).toBe(true);
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(290_000);
    const identity = await cast.registry.authenticate({ token, workspace: 'main' });
    expect(identity).toEqual({
      workspace: 'main',
      kind: 'job',
      username: 'owner',
      email: 'owner@example.test',
      isAdmin: false,
      groups: ['all'],
      jobId: 'job-1',
      onBehalfOf: 'u/owner',
      // Only authenticate says when the token stops being valid (for caches of decisions).
      tokenExpiresAt: expiresAt,
    });
  });

  it('acting as a group: the group’s rights, not the issuer’s', async () => {
    const { token } = await issue(cast.actors.member.token, 'g/devs');
    expect(await cast.registry.whoami(main(token))).toMatchObject({
      kind: 'job',
      username: 'g/devs',
      groups: ['all', 'devs'],
    });
    const allowed = async (path: string, action: 'read' | 'write') =>
      (await cast.registry.checkAccess({ ...main(token), path, action })).allowed;
    expect(await allowed(`f/${FOLDER}/x`, 'write')).toBe(true);
    expect(await allowed('u/member/x', 'read')).toBe(false);
  });

  it('in a batch, each issued or refused on its own, as one at a time would be', async () => {
    const one = (token: string, jobId: string, onBehalfOf: string) => ({
      ...main(token),
      jobId,
      onBehalfOf,
      ttlSeconds: 300,
    });
    const { results } = await cast.registry.issueJobTokens({
      requests: [
        one(ownerToken(), 'job-a', 'u/owner'),
        one(cast.actors.member.token, 'job-b', 'u/owner'),
        one('not-a-token', 'job-c', 'u/owner'),
        one(cast.actors.member.token, 'job-d', 'g/devs'),
      ],
    });
    expect(results.map((result) => (result.ok ? 'issued' : result.error.code))).toEqual([
      'issued',
      'PERMISSION_DENIED',
      'UNAUTHENTICATED',
      'issued',
    ]);
    const [first, , , last] = results;
    if (!first?.ok || !last?.ok) throw new Error('expected tokens');
    expect(await cast.registry.whoami(main(first.token))).toMatchObject({
      jobId: 'job-a',
      username: 'owner',
    });
    expect(await cast.registry.whoami(main(last.token))).toMatchObject({
      jobId: 'job-d',
      username: 'g/devs',
    });
  });

  it('acting as an email-shaped user name', async () => {
    const { token } = await issue(adminToken(), 'owner@example.test');
    expect(await cast.registry.whoami(main(token))).toMatchObject({
      username: 'owner',
      onBehalfOf: 'owner@example.test',
    });
  });

  it('expire', async () => {
    const { token } = await issue(ownerToken(), 'u/owner', { ttlSeconds: 1 });
    await waitFor(
      async () => (await outcomeOf(() => cast.registry.whoami(main(token)))) === 'UNAUTHENTICATED',
      { description: 'the job token to expire' },
    );
    expect(await errorOf(() => cast.registry.whoami(main(token)))).toMatchObject({
      message: 'the job token has expired',
    });
  });

  it('never outlive the token that issued them', async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const { token } = await cast.registry.createApiToken({
      ...main(ownerToken()),
      expiresAt: expiresAt.toISOString(),
    });
    const job = await issue(token, 'u/owner', { ttlSeconds: 3600 });
    expect(Date.parse(job.expiresAt)).toBeLessThanOrEqual(expiresAt.getTime());
  });

  it('are refused when tampered with, or in another workspace', async () => {
    const { token } = await issue(adminToken(), 'u/owner');
    const [body = '', signature = ''] = token.slice(4).split('.');
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = `fmj_${Buffer.from(JSON.stringify({ ...claims, onBehalfOf: 'u/admin' })).toString('base64url')}.${signature}`;
    const flipped = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of [forged, flipped, `${token}.x`, 'fmj_', 'fmj_abc.def']) {
      expect(await errorOf(() => cast.registry.whoami(main(bad)))).toMatchObject({
        code: 'UNAUTHENTICATED',
        message: 'the token is invalid',
      });
    }

    await cast.registry.createWorkspace({ actor: { token: adminToken() }, id: 'other', name: 'Other' });
    await cast.registry.addUser({
      ...main(adminToken()),
      workspace: 'other',
      email: 'owner@example.test',
      username: 'owner',
    });
    // The admin's first token works in every workspace it is in; the job token in its own only.
    expect(await cast.registry.whoami({ actor: { token: adminToken() }, workspace: 'other' })).toMatchObject({
      username: 'admin',
    });
    expect(await errorOf(() => cast.registry.whoami({ actor: { token }, workspace: 'other' }))).toMatchObject(
      {
        code: 'UNAUTHENTICATED',
        message: 'the token is not valid in workspace "other"',
      },
    );
  });

  it('are refused once their principal left the workspace', async () => {
    const leaving = await cast.addUser(cast.unique('leaving'));
    const { token } = await issue(leaving.token, `u/${leaving.username}`);
    await cast.registry.removeUser({ ...main(adminToken()), username: leaving.username });
    expect(await errorOf(() => cast.registry.whoami(main(token)))).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(await errorOf(() => cast.registry.whoami(main(leaving.token)))).toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it("a new job's token reads its principal as it is now: a group joined, then the workspace left", async () => {
    const joining = await cast.addUser(cast.unique('joining'));
    const principal = `u/${joining.username}`;
    const first = await issue(joining.token, principal);
    expect((await cast.registry.whoami(main(first.token))).groups).toEqual(['all']);
    const group = (await cast.registry.createGroup({ ...main(adminToken()), name: cast.unique('g') })).name;
    await cast.registry.addGroupMember({ ...main(adminToken()), name: group, username: joining.username });
    // Another job acting as the same principal, after the change: not the principal read for the first.
    const second = await issue(joining.token, principal);
    expect((await cast.registry.whoami(main(second.token))).groups).toEqual(['all', group]);
    await cast.registry.removeUser({ ...main(adminToken()), username: joining.username });
    const third = cast.registry.whoami(main(second.token));
    expect(await errorOf(() => third)).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('scopes only narrow, and a job token cannot mint API tokens', async () => {
    const { token } = await issue(ownerToken(), 'u/owner', {
      scopes: ['resources:read:f/team/*', 'flows:write'],
    });
    const narrower = await issue(token, 'u/owner', { scopes: ['flows:read'] });
    expect(await cast.registry.whoami(main(narrower.token))).toMatchObject({ scopes: ['flows:read'] });
    expect(await errorOf(() => issue(token, 'u/owner', { scopes: ['resources:read'] }))).toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    expect(await errorOf(() => issue(token, 'u/writer'))).toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(await errorOf(() => cast.registry.createApiToken(main(token)))).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: 'a job token cannot manage API tokens',
    });
  });
});
