import { MeshError } from '@flowmesh/contracts';
import { afterAll, beforeAll } from 'vitest';
import { describePermissionMatrix, outcomes, row, type MatrixRow } from './support/permission-matrix.js';
import { FOLDER, GROUP, startRegistryCast, type Actor, type RegistryCast } from './support/registry-cast.js';

let cast: RegistryCast;

beforeAll(async () => {
  cast = await startRegistryCast();
});

afterAll(async () => {
  await cast?.stop();
});

const as = (actor: Actor) => ({ actor: { token: actor.token }, workspace: cast.workspace });
const admin = () => ({ actor: { token: cast.actors.admin.token }, workspace: cast.workspace });
/** Folder roles of `team`, for a folder a cell may change or delete. */
const teamRoles = { owners: ['u/owner'], writers: ['u/writer', `g/${GROUP}`], readers: ['u/reader'] };

const usersAndGroups: MatrixRow[] = [
  { operation: 'whoami', run: (_, actor) => cast.registry.whoami(as(actor)), expect: outcomes('ok') },
  { operation: 'users.list', run: (_, actor) => cast.registry.listUsers(as(actor)), expect: outcomes('ok') },
  {
    operation: 'users.get owner',
    run: (_, actor) => cast.registry.getUser({ ...as(actor), username: 'owner' }),
    expect: outcomes('ok'),
  },
  {
    operation: 'users.add',
    run: (c, actor) => {
      const username = c.unique('new');
      return c.registry.addUser({ ...as(actor), username, email: `${username}@example.test` });
    },
    expect: outcomes('PERMISSION_DENIED', { admin: 'ok' }),
  },
  row<string>({
    operation: 'users.update (make admin)',
    prepare: async (c) => (await c.addUser(c.unique('promoted'))).username,
    run: (c, actor, username) => c.registry.updateUser({ ...as(actor), username, isAdmin: true }),
    expect: outcomes('PERMISSION_DENIED', { admin: 'ok' }),
  }),
  row<string>({
    operation: 'users.remove',
    prepare: async (c) => (await c.addUser(c.unique('leaving'))).username,
    run: (c, actor, username) => c.registry.removeUser({ ...as(actor), username }),
    expect: outcomes('PERMISSION_DENIED', { admin: 'ok' }),
  }),
  {
    operation: 'groups.list',
    run: (_, actor) => cast.registry.listGroups(as(actor)),
    expect: outcomes('ok'),
  },
  {
    operation: 'groups.get devs',
    run: (_, actor) => cast.registry.getGroup({ ...as(actor), name: GROUP }),
    expect: outcomes('ok'),
  },
  {
    operation: 'groups.create',
    run: (c, actor) => c.registry.createGroup({ ...as(actor), name: c.unique('g') }),
    expect: outcomes('PERMISSION_DENIED', { admin: 'ok' }),
  },
  row<string>({
    operation: 'groups.add_member',
    prepare: async (c) => (await c.registry.createGroup({ ...admin(), name: c.unique('g') })).name,
    run: (c, actor, name) => c.registry.addGroupMember({ ...as(actor), name, username: 'stranger' }),
    expect: outcomes('PERMISSION_DENIED', { admin: 'ok' }),
  }),
  row<string>({
    operation: 'groups.remove_member',
    prepare: async (c) => {
      const { name } = await c.registry.createGroup({ ...admin(), name: c.unique('g') });
      await c.registry.addGroupMember({ ...admin(), name, username: 'stranger' });
      return name;
    },
    run: (c, actor, name) => c.registry.removeGroupMember({ ...as(actor), name, username: 'stranger' }),
    expect: outcomes('PERMISSION_DENIED', { admin: 'ok' }),
  }),
  row<string>({
    operation: 'groups.delete',
    prepare: async (c) => (await c.registry.createGroup({ ...admin(), name: c.unique('g') })).name,
    run: (c, actor, name) => c.registry.deleteGroup({ ...as(actor), name }),
    expect: outcomes('PERMISSION_DENIED', { admin: 'ok' }),
  }),
];

const folders: MatrixRow[] = [
  {
    // Hidden from the list reads as NOT_FOUND, like a get.
    operation: 'folders.list shows team',
    run: async (_, actor) => {
      const { folders: seen } = await cast.registry.listFolders(as(actor));
      if (!seen.some((folder) => folder.name === FOLDER))
        throw new MeshError('NOT_FOUND', 'team is not listed');
    },
    expect: outcomes('ok', { stranger: 'NOT_FOUND' }),
  },
  {
    operation: 'folders.get team',
    run: (_, actor) => cast.registry.getFolder({ ...as(actor), name: FOLDER }),
    expect: outcomes('ok', { stranger: 'NOT_FOUND' }),
  },
  {
    operation: 'folders.create',
    run: (c, actor) => c.registry.createFolder({ ...as(actor), name: c.unique('f') }),
    expect: outcomes('ok', { job: 'PERMISSION_DENIED' }),
  },
  row<string>({
    operation: 'folders.update (a folder with team roles)',
    prepare: async (c) =>
      (await c.registry.createFolder({ ...admin(), name: c.unique('f'), ...teamRoles })).name,
    run: (c, actor, name) => c.registry.updateFolder({ ...as(actor), name, summary: 'changed' }),
    expect: outcomes('PERMISSION_DENIED', { admin: 'ok', owner: 'ok', stranger: 'NOT_FOUND' }),
  }),
  row<string>({
    operation: 'folders.delete (a folder with team roles)',
    prepare: async (c) =>
      (await c.registry.createFolder({ ...admin(), name: c.unique('f'), ...teamRoles })).name,
    run: (c, actor, name) => c.registry.deleteFolder({ ...as(actor), name }),
    expect: outcomes('PERMISSION_DENIED', { admin: 'ok', owner: 'ok', stranger: 'NOT_FOUND' }),
  }),
];

const check = (path: string, action: 'read' | 'write') => async (_: RegistryCast, actor: Actor) =>
  (await cast.registry.checkAccess({ ...as(actor), path, action, domain: 'resources' })).allowed;

const access: MatrixRow[] = [
  {
    operation: 'access.check read f/team/x',
    run: check('f/team/x', 'read'),
    expect: outcomes('ok', { stranger: 'denied' }),
  },
  {
    operation: 'access.check write f/team/x',
    run: check('f/team/x', 'write'),
    expect: outcomes('ok', { reader: 'denied', stranger: 'denied', job: 'denied' }),
  },
  {
    operation: 'access.check read u/owner/x',
    run: check('u/owner/x', 'read'),
    expect: outcomes('denied', { admin: 'ok', owner: 'ok', job: 'denied' }),
  },
  {
    operation: 'access.check write u/owner/x',
    run: check('u/owner/x', 'write'),
    expect: outcomes('denied', { admin: 'ok', owner: 'ok' }),
  },
  {
    operation: 'access.check read u/stranger/x',
    run: check('u/stranger/x', 'read'),
    expect: outcomes('denied', { admin: 'ok', stranger: 'ok' }),
  },
  {
    operation: 'access.check read f/other/x (no such folder)',
    run: check('f/other/x', 'read'),
    expect: outcomes('denied', { admin: 'ok' }),
  },
];

const tokens: MatrixRow[] = [
  {
    operation: 'tokens.create',
    run: (_, actor) => cast.registry.createApiToken({ ...as(actor), label: 'matrix' }),
    expect: outcomes('ok', { job: 'PERMISSION_DENIED' }),
  },
  {
    operation: 'tokens.list',
    run: (_, actor) => cast.registry.listApiTokens(as(actor)),
    expect: outcomes('ok', { job: 'PERMISSION_DENIED' }),
  },
  row<string>({
    // A token of the actor's own user, made by the admin; the job and bad tokens target owner's.
    operation: 'tokens.revoke own token',
    prepare: async (c, name) => {
      const username = c.actors[name].username;
      return (await c.registry.createApiToken({ ...admin(), username, label: 'to revoke' })).prefix;
    },
    run: (c, actor, prefix) => c.registry.revokeApiToken({ ...as(actor), prefix }),
    expect: outcomes('ok', { job: 'PERMISSION_DENIED' }),
  }),
  row<string>({
    operation: "tokens.revoke another user's token",
    prepare: async (c) =>
      (await c.registry.createApiToken({ ...admin(), username: 'stranger', label: 'not yours' })).prefix,
    run: (c, actor, prefix) => c.registry.revokeApiToken({ ...as(actor), prefix }),
    expect: outcomes('NOT_FOUND', { stranger: 'ok', job: 'PERMISSION_DENIED' }),
  }),
  {
    operation: 'tokens.issue_job as itself',
    run: (_, actor) =>
      cast.registry.issueJobToken({
        ...as(actor),
        jobId: 'j1',
        onBehalfOf: actor.name === 'job' ? 'u/owner' : `u/${actor.username}`,
        ttlSeconds: 60,
      }),
    expect: outcomes('ok'),
  },
  {
    operation: 'tokens.issue_job as u/owner',
    run: (_, actor) =>
      cast.registry.issueJobToken({ ...as(actor), jobId: 'j2', onBehalfOf: 'u/owner', ttlSeconds: 60 }),
    expect: outcomes('PERMISSION_DENIED', { admin: 'ok', owner: 'ok', job: 'ok' }),
  },
  {
    operation: 'tokens.issue_job as g/devs',
    run: (_, actor) =>
      cast.registry.issueJobToken({ ...as(actor), jobId: 'j3', onBehalfOf: `g/${GROUP}`, ttlSeconds: 60 }),
    expect: outcomes('PERMISSION_DENIED', { admin: 'ok', member: 'ok' }),
  },
  {
    operation: 'tokens.issue_job with resources:write (wider than a job read scope)',
    run: (_, actor) =>
      cast.registry.issueJobToken({
        ...as(actor),
        jobId: 'j4',
        onBehalfOf: actor.name === 'job' ? 'u/owner' : `u/${actor.username}`,
        scopes: ['resources:write:f/team/*'],
        ttlSeconds: 60,
      }),
    expect: outcomes('ok', { job: 'PERMISSION_DENIED' }),
  },
];

const workspaces: MatrixRow[] = [
  {
    operation: 'workspaces.list',
    run: (_, actor) => cast.registry.listWorkspaces({ actor: { token: actor.token } }),
    expect: outcomes('ok', { job: 'UNAUTHENTICATED' }),
  },
  {
    operation: 'workspaces.create',
    run: (c, actor) =>
      c.registry.createWorkspace({ actor: { token: actor.token }, id: c.unique('ws'), name: 'W' }),
    expect: outcomes('PERMISSION_DENIED', { admin: 'ok', job: 'UNAUTHENTICATED' }),
  },
];

describePermissionMatrix('identity permissions over NATS', () => cast, [
  ...usersAndGroups,
  ...folders,
  ...access,
  ...tokens,
  ...workspaces,
]);
