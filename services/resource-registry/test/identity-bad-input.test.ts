import { MeshError } from '@flowmesh/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegistryCast, type RegistryCast } from './support/registry-cast.js';

let cast: RegistryCast;

beforeAll(async () => {
  cast = await startRegistryCast();
});

afterAll(async () => {
  await cast?.stop();
});

const main = () => ({ actor: { token: cast.actors.admin.token }, workspace: 'main' });

async function errorOf(action: () => Promise<unknown>): Promise<MeshError> {
  const error = await action().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof MeshError)) throw new Error(`expected a MeshError, got ${String(error)}`);
  return error;
}

/** Row counts of every identity table, to show a refused request wrote nothing. */
async function counts(): Promise<Record<string, number>> {
  const tables = [
    'account',
    'workspace',
    'workspace_user',
    'workspace_group',
    'group_member',
    'folder',
    'api_token',
  ];
  const entries = await Promise.all(
    tables.map(async (table) => {
      const rows: Array<{ n: number }> = await cast.dataSource.query(
        `SELECT count(*)::int AS n FROM ${table}`,
      );
      return [table, rows[0]?.n ?? -1] as const;
    }),
  );
  return Object.fromEntries(entries);
}

async function refusedWithoutWriting(action: () => Promise<unknown>): Promise<MeshError> {
  const before = await counts();
  const error = await errorOf(action);
  expect(await counts()).toEqual(before);
  return error;
}

describe('bad input: a clear error and nothing written', () => {
  it.each([
    ['x/y', 'path "x/y" must start with u/<user>/ or f/<folder>/'],
    ['resources/a', 'path "resources/a" must start with u/<user>/ or f/<folder>/'],
    ['u/owner', 'path "u/owner" must name an item after u/owner/'],
    ['u/owner/', 'path "u/owner/" must name an item after u/owner/'],
    ['f/team//x', 'path "f/team//x": segment "" must be letters, digits'],
    ['f/team/../x', 'path "f/team/../x": segment ".." must be letters, digits'],
    ['f/bad name/x', 'path "f/bad name/x": "bad name" is not valid: a folder name must be letters, digits'],
    ['u//x', 'path "u//x": "" is not valid: a user name must not be empty'],
  ])('a malformed path %j is VALIDATION_FAILED: %s', async (path, message) => {
    const error = await errorOf(() => cast.registry.checkAccess({ ...main(), path, action: 'read' }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toContain(message);
  });

  it('an unknown workspace is NOT_FOUND; a member token answers the same for one that exists and one that does not', async () => {
    const unknown = await refusedWithoutWriting(() =>
      cast.registry.createFolder({ ...main(), workspace: 'nowhere', name: 'x' }),
    );
    expect(unknown.toEnvelope()).toEqual({
      code: 'NOT_FOUND',
      message: 'workspace "nowhere" not found',
      details: { workspace: 'nowhere' },
    });
    await cast.registry.createWorkspace({ actor: main().actor, id: 'private', name: 'Private' });
    const asStranger = (workspace: string) =>
      errorOf(() => cast.registry.whoami({ actor: { token: cast.actors.stranger.token }, workspace }));
    expect((await asStranger('private')).toEnvelope()).toEqual({
      code: 'UNAUTHENTICATED',
      message: 'the token is not valid in workspace "private"',
    });
    expect((await asStranger('nowhere2')).toEnvelope()).toEqual({
      code: 'UNAUTHENTICATED',
      message: 'the token is not valid in workspace "nowhere2"',
    });
  });

  it('a malformed workspace id is VALIDATION_FAILED naming the field', async () => {
    const error = await refusedWithoutWriting(() =>
      cast.registry.createWorkspace({ actor: main().actor, id: 'Has Space', name: 'x' }),
    );
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toContain('id: "Has Space" is not valid: a workspace id must be lowercase letters');
  });

  it.each([
    ['resources:delete', 'scope "resources:delete": unknown action "delete" (one of read, write, run)'],
    ['things:read', 'scope "things:read": unknown domain "things"'],
    ['resources', 'scope "resources" must be domain:action or domain:action:resource'],
    ['resources:read:x/y', 'scope "resources:read:x/y": resource "x/y" must be a path under u/, f/ or g/'],
    [
      'resources:read:f/*/x',
      'scope "resources:read:f/*/x": resource "f/*/x" must be a path under u/, f/ or g/, with \'*\' only at the end',
    ],
  ])('a bad scope %j on a new token is VALIDATION_FAILED: %s', async (scope, message) => {
    const error = await refusedWithoutWriting(() =>
      cast.registry.createApiToken({ ...main(), scopes: ['flows:read', scope] }),
    );
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toContain(`scopes[1]: ${message}`);
  });

  it('a token expiring in the past is refused', async () => {
    const error = await refusedWithoutWriting(() =>
      cast.registry.createApiToken({ ...main(), expiresAt: '2001-01-01T00:00:00Z' }),
    );
    expect(error.toEnvelope()).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'expiresAt "2001-01-01T00:00:00Z" is not in the future',
    });
  });

  it('folder roles naming nobody, or not a principal, are refused', async () => {
    const ghost = await refusedWithoutWriting(() =>
      cast.registry.createFolder({
        ...main(),
        name: 'haunted',
        owners: ['u/owner', 'u/ghost'],
        readers: ['g/nobody'],
      }),
    );
    expect(ghost.code).toBe('VALIDATION_FAILED');
    expect(ghost.message).toBe(
      'invalid folder roles: owners[1]: user "ghost" not found in workspace "main" (and 1 more)',
    );
    const malformed = await refusedWithoutWriting(() =>
      cast.registry.createFolder({ ...main(), name: 'odd', writers: ['alice'] }),
    );
    expect(malformed.message).toContain('writers[0]: "alice" must be u/<user> or g/<group>');
  });

  it('a duplicate folder, group or member is CONFLICT', async () => {
    expect(
      (
        await refusedWithoutWriting(() => cast.registry.createFolder({ ...main(), name: 'team' }))
      ).toEnvelope(),
    ).toEqual({
      code: 'CONFLICT',
      message: 'folder "team" already exists',
      details: { name: 'team' },
    });
    expect(
      (await refusedWithoutWriting(() => cast.registry.createGroup({ ...main(), name: 'devs' }))).code,
    ).toBe('CONFLICT');
    expect(
      (await refusedWithoutWriting(() => cast.registry.createGroup({ ...main(), name: 'all' }))).message,
    ).toBe('group "all" is built in: every member belongs to it');
    const member = await refusedWithoutWriting(() =>
      cast.registry.addUser({ ...main(), username: 'someone', email: 'OWNER@example.test' }),
    );
    expect(member.message).toBe('email "owner@example.test" is already a member of workspace "main"');
  });

  it('bad user fields and job principals are VALIDATION_FAILED', async () => {
    expect(
      (
        await refusedWithoutWriting(() =>
          cast.registry.addUser({ ...main(), username: 'ok', email: 'not-an-email' }),
        )
      ).message,
    ).toContain('email');
    expect(
      (
        await refusedWithoutWriting(() =>
          cast.registry.addUser({ ...main(), username: 'a/b', email: 'a@b.test' }),
        )
      ).message,
    ).toContain('username: "a/b" is not valid');
    const principal = await errorOf(() =>
      cast.registry.issueJobToken({ ...main(), jobId: 'j', onBehalfOf: 'owner', ttlSeconds: 10 }),
    );
    expect(principal.message).toContain('onBehalfOf: "owner" must be u/<user> or g/<group>, or an email');
    const unknown = await errorOf(() =>
      cast.registry.issueJobToken({ ...main(), jobId: 'j', onBehalfOf: 'u/ghost', ttlSeconds: 10 }),
    );
    expect(unknown.toEnvelope()).toMatchObject({
      code: 'NOT_FOUND',
      message: 'u/ghost not found in workspace "main"',
    });
  });

  it('over HTTP: 400 with every problem and its path, nothing written', async () => {
    const before = await counts();
    const answer = await cast.http('POST', '/api/w/main/folders/create', cast.actors.admin.token, {
      name: 'bad name',
      owners: ['x'],
      extra: true,
    });
    expect(answer.status).toBe(400);
    const body = answer.body as {
      code: string;
      message: string;
      details: { issues: Array<{ path: string }> };
    };
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.message).toContain('invalid request body: name:');
    const issues = body.details.issues.map((issue) => issue.path);
    expect(issues).toEqual(expect.arrayContaining(['name', 'owners[0]', '(root)']));
    expect(await counts()).toEqual(before);
  });
});
