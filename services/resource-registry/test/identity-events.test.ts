import { randomBytes } from 'node:crypto';
import { IDENTITY_EVENTS_SUBJECT, parseIdentityEvent, type IdentityEvent } from '@flowmesh/contracts';
import { waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegistryCast, WORKSPACE, type RegistryCast } from './support/registry-cast.js';
import { startRegistryReplica, type RegistryReplica } from './support/registry-replica.js';

/**
 * Identity writes announce themselves on `evt.identity.*` through the outbox, and another
 * replica clears its identity caches on them. Both registries keep authentications for ten
 * minutes here, so a replica refusing a revoked token within seconds heard the event.
 */
const AUTH_CACHE_MS = '600000';
const JOB_TOKEN_KEY = randomBytes(32).toString('base64url');

let cast: RegistryCast;
let replica: RegistryReplica;
const seen: IdentityEvent[] = [];
const inMain = () => ({ actor: { token: cast.actors.admin.token }, workspace: WORKSPACE });

/** The identity events seen so far that match. */
function eventually(description: string, matches: (event: IdentityEvent) => boolean): Promise<IdentityEvent> {
  return waitFor(() => seen.find(matches), { description });
}

beforeAll(async () => {
  const env = { FLOWMESH_AUTH_CACHE_MS: AUTH_CACHE_MS, FLOWMESH_JOB_TOKEN_KEY: JOB_TOKEN_KEY };
  cast = await startRegistryCast(env);
  replica = await startRegistryReplica(cast, env);
  const conn = cast.service.conn;
  conn.nc.subscribe(conn.space.subject(IDENTITY_EVENTS_SUBJECT), {
    callback: (error, message) => {
      if (error) return;
      const subject = conn.space.relative(message.subject);
      const event = subject && parseIdentityEvent(subject, message.json());
      if (event) seen.push(event);
    },
  });
});

afterAll(async () => {
  await replica?.stop();
  await cast?.stop();
});

describe('resource-registry identity events', () => {
  it('announces a revoked token (account and prefix, never the token), and another replica refuses it at once', async () => {
    const user = await cast.addUser(cast.unique('revokee'));
    const made = await cast.registry.createApiToken({ actor: { token: user.token }, workspace: WORKSPACE });
    const whoami = (token: string) =>
      fetch(`${replica.url}/api/w/${WORKSPACE}/users/whoami`, {
        headers: { authorization: `Bearer ${token}` },
      });
    expect((await whoami(made.token)).status).toBe(200); // now cached on the replica for ten minutes

    // Over HTTP to the first registry: over NATS the replica itself might take the request.
    const revoked = await cast.http('DELETE', `/api/w/${WORKSPACE}/tokens/delete/${made.prefix}`, user.token);
    expect(revoked.status).toBe(200);
    const event = await eventually(
      'evt.identity.token_revoked',
      (e) => e.name === 'tokenRevoked' && e.event.prefix === made.prefix,
    );
    expect(event.event).toMatchObject({
      workspace: WORKSPACE,
      email: user.email,
      by: user.username,
      // How long the replicas' caches may still answer as before: the longest of them.
      stale_for_ms: Number(AUTH_CACHE_MS),
    });
    expect(JSON.stringify(event)).not.toContain(made.token);

    await waitFor(async () => (await whoami(made.token)).status === 401, {
      description: 'the replica refusing the revoked token',
    });
  });

  it('announces members added, removed, made admin and moved between groups, and groups created and deleted', async () => {
    const username = cast.unique('member');
    const group = cast.unique('group');
    await cast.registry.addUser({ ...inMain(), email: `${username}@example.test`, username, isAdmin: false });
    await cast.registry.createGroup({ ...inMain(), name: group });
    await cast.registry.addGroupMember({ ...inMain(), name: group, username });
    await cast.registry.removeGroupMember({ ...inMain(), name: group, username });
    await cast.registry.updateUser({ ...inMain(), username, isAdmin: true });
    await cast.registry.deleteGroup({ ...inMain(), name: group });
    await cast.registry.removeUser({ ...inMain(), username });

    await eventually(
      'member removed',
      (e) => e.name === 'memberChanged' && e.event.username === username && e.event.change === 'removed',
    );
    const facts = seen
      .filter(
        (e) =>
          (e.name === 'memberChanged' && e.event.username === username) ||
          (e.name === 'groupChanged' && e.event.group === group),
      )
      .map((e) =>
        e.name === 'memberChanged'
          ? `member ${e.event.change}${e.event.group ? ' ' + e.event.group : ''}`
          : `group ${e.event.change}`,
      );
    expect(facts).toEqual([
      'member added',
      'group created',
      `member groups_changed ${group}`,
      `member groups_changed ${group}`,
      'member admin_changed',
      'group deleted',
      'member removed',
    ]);
  });

  it('announces folders created, changed and deleted', async () => {
    const folder = cast.unique('folder');
    const reader = cast.actors.reader;
    await cast.registry.createFolder({ ...inMain(), name: folder, readers: [`u/${reader.username}`] });
    const get = (token: string) =>
      fetch(`${replica.url}/api/w/${WORKSPACE}/folders/get/${folder}`, {
        headers: { authorization: `Bearer ${token}` },
      });
    expect((await get(reader.token)).status).toBe(200);

    const updated = await cast.http(
      'POST',
      `/api/w/${WORKSPACE}/folders/update/${folder}`,
      cast.actors.admin.token,
      {
        readers: [],
      },
    );
    expect(updated.status).toBeLessThan(300);
    await waitFor(async () => (await get(reader.token)).status === 404, {
      description: 'the replica no longer showing the folder to its former reader',
    });
    await cast.registry.deleteFolder({ ...inMain(), name: folder });

    await eventually(
      'folder deleted',
      (e) => e.name === 'folderChanged' && e.event.folder === folder && e.event.change === 'deleted',
    );
    const changes = seen.flatMap((e) =>
      e.name === 'folderChanged' && e.event.folder === folder ? [e.event.change] : [],
    );
    expect(changes).toEqual(['created', 'updated', 'deleted']);
  });

  it('announces nothing for a write that changed nothing or failed', async () => {
    const before = seen.length;
    await expect(cast.registry.revokeApiToken({ ...inMain(), prefix: 'fm_nothing' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await cast.registry.removeGroupMember({
      ...inMain(),
      name: 'devs',
      username: cast.actors.stranger.username,
    });
    // A barrier instead of a pause: events leave through the outbox as their writes commit, in
    // order, so once the event of a later write is here, one of the two writes above would be too.
    const marker = cast.unique('marker');
    await cast.registry.createGroup({ ...inMain(), name: marker });
    const created = await eventually(
      'the marker group created',
      (e) => e.name === 'groupChanged' && e.event.group === marker,
    );
    expect(seen.slice(before)).toEqual([created]);
    await cast.registry.deleteGroup({ ...inMain(), name: marker });
  });
});
