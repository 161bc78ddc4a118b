import {
  createRegistryHistoryClient,
  RESOURCE_VERSIONS_KEPT,
  type RegistryHistoryClient,
  type RegistryItemsClient,
} from '@flowmesh/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, errorOf, itemsClient } from './support/items-support.js';
import { startRegistryCast, type RegistryCast } from './support/registry-cast.js';

let cast: RegistryCast;
let items: RegistryItemsClient;
let history: RegistryHistoryClient;

beforeAll(async () => {
  cast = await startRegistryCast();
  items = itemsClient(cast);
  history = createRegistryHistoryClient(cast.service.client);
});

afterAll(async () => {
  await cast?.stop();
});

const owner = () => as(cast, cast.actors.owner);
const mcp = (n: number) => ({ url: `https://mcp.example.test/v${n}` });

async function versionRows(path: string): Promise<number> {
  const [row] = await cast.dataSource.query<
    Array<{
      n: number;
    }>
  >(`SELECT count(*)::int AS n FROM resource_version WHERE path = $1`, [path]);
  return row?.n ?? 0;
}

describe('every resource write appends a version', () => {
  it(`keeps the newest ${RESOURCE_VERSIONS_KEPT}: after 105 writes, versions 6..105 remain`, async () => {
    const path = 'u/owner/capped';
    await items.createResource({ ...owner(), path, resource_type: 'mcp', value: mcp(1) });
    for (let n = 2; n <= 105; n++) await items.updateResourceValue({ ...owner(), path, value: mcp(n) });

    const { versions } = await history.list({ ...owner(), path });
    expect(versions).toHaveLength(100);
    expect(versions[0]).toMatchObject({
      version: 105,
      resource_type: 'mcp',
      created_by: 'owner',
      restored_from: null,
    });
    expect(versions.at(-1)?.version).toBe(6);
    expect(await versionRows(path)).toBe(100);
    expect((await history.get({ ...owner(), path, version: 6 })).value).toEqual(mcp(6));
    expect(await errorOf(() => history.get({ ...owner(), path, version: 5 }))).toMatchObject({
      code: 'NOT_FOUND',
      message: 'version 5 of resource u/owner/capped not found (it may have been dropped or cleared)',
    });
  });

  it('restore writes the old value forward as a new version and never rewrites history', async () => {
    const path = 'u/owner/restored';
    await items.createResource({
      ...owner(),
      path,
      resource_type: 'mcp',
      value: mcp(1),
      description: 'first',
    });
    await items.updateResource({ ...owner(), path, value: mcp(2), description: 'second' });
    await items.updateResourceValue({ ...owner(), path, value: mcp(3) });

    const restored = await history.restore({ ...owner(), path, version: 1 });
    expect(restored).toMatchObject({ version: 4, restored_from: 1, description: 'first' });
    expect((await items.getResource({ ...owner(), path })).value).toEqual(mcp(1));
    const { versions } = await history.list({ ...owner(), path });
    expect(versions.map((v) => v.version)).toEqual([4, 3, 2, 1]);
    expect((await history.get({ ...owner(), path, version: 2 })).value).toEqual(mcp(2));
    expect((await history.get({ ...owner(), path, version: 4 })).value).toEqual(mcp(1));
  });

  it('diff lists the changed, added and removed paths between two versions', async () => {
    const path = 'u/owner/diffed';
    await items.createResource({
      ...owner(),
      path,
      resource_type: 'mcp',
      value: { url: 'https://a.test', transport: 'sse' },
    });
    await items.updateResource({
      ...owner(),
      path,
      value: { url: 'https://b.test', headers: { 'x-key': '$var:u/owner/k' } },
      description: 'b',
    });
    const diff = await history.diff({ ...owner(), path, from: 1, to: 2 });
    expect(diff).toEqual({
      path,
      from: 1,
      to: 2,
      changes: [
        { op: 'changed', path: 'description', from: null, to: 'b' },
        { op: 'changed', path: 'value.url', from: 'https://a.test', to: 'https://b.test' },
        { op: 'removed', path: 'value.transport', from: 'sse' },
        { op: 'added', path: 'value.headers', to: { 'x-key': '$var:u/owner/k' } },
      ],
    });
    expect(await history.diff({ ...owner(), path, from: 2, to: 2 })).toMatchObject({ changes: [] });
  });

  it('clear past versions keeps only the current value', async () => {
    const path = 'u/owner/cleared';
    await items.createResource({ ...owner(), path, resource_type: 'mcp', value: mcp(1) });
    for (let n = 2; n <= 4; n++) await items.updateResourceValue({ ...owner(), path, value: mcp(n) });
    expect(await history.clear({ ...owner(), path })).toEqual({ removed: 3, kept: 4 });
    const { versions } = await history.list({ ...owner(), path });
    expect(versions.map((v) => v.version)).toEqual([4]);
    expect((await history.get({ ...owner(), path, version: 4 })).value).toEqual(mcp(4));
    expect((await items.getResource({ ...owner(), path })).value).toEqual(mcp(4));
    // Numbers are never reused: the next write is 5, not 2.
    await items.updateResourceValue({ ...owner(), path, value: mcp(5) });
    expect((await history.list({ ...owner(), path })).versions.map((v) => v.version)).toEqual([5, 4]);
  });

  it('state and cache resources are not versioned', async () => {
    for (const type of ['state', 'cache']) {
      const path = `u/owner/${type}_value`;
      await items.createResource({ ...owner(), path, resource_type: type, value: { n: 1 } });
      await items.updateResourceValue({ ...owner(), path, value: { n: 2 } });
      expect((await history.list({ ...owner(), path })).versions).toEqual([]);
      expect(await versionRows(path)).toBe(0);
    }
  });

  it('variables are never versioned, and a $var: reference stays a reference in the history', async () => {
    const before = await versionRows('u/owner/api_key');
    const secret = 'sk-live-history-test-value';
    await items.createVariable({ ...owner(), path: 'u/owner/api_key', value: secret, is_secret: true });
    await items.updateVariable({ ...owner(), path: 'u/owner/api_key', value: `${secret}-rotated` });
    await items.createResource({
      ...owner(),
      path: 'u/owner/openai',
      resource_type: 'openai',
      value: { api_key: '$var:u/owner/api_key' },
    });
    expect(await versionRows('u/owner/api_key')).toBe(before);
    expect((await history.get({ ...owner(), path: 'u/owner/openai', version: 1 })).value).toEqual({
      api_key: '$var:u/owner/api_key',
    });
    const raw = JSON.stringify(await cast.dataSource.query(`SELECT * FROM resource_version`));
    expect(raw).not.toContain(secret);
  });

  it('a rename carries the history along; a delete takes it away', async () => {
    await items.createResource({ ...owner(), path: 'u/owner/old_name', resource_type: 'mcp', value: mcp(1) });
    await items.updateResource({
      ...owner(),
      path: 'u/owner/old_name',
      new_path: 'u/owner/new_name',
      value: mcp(2),
    });
    expect(
      (await history.list({ ...owner(), path: 'u/owner/new_name' })).versions.map((v) => [v.version, v.path]),
    ).toEqual([
      [2, 'u/owner/new_name'],
      [1, 'u/owner/new_name'],
    ]);
    await items.deleteResource({ ...owner(), path: 'u/owner/new_name' });
    expect(await versionRows('u/owner/new_name')).toBe(0);
    expect((await errorOf(() => history.list({ ...owner(), path: 'u/owner/new_name' }))).code).toBe(
      'NOT_FOUND',
    );
  });
});

describe('who may read and change the history', () => {
  beforeAll(async () => {
    await items.createResource({ ...owner(), path: 'f/team/shared', resource_type: 'mcp', value: mcp(1) });
    await items.updateResourceValue({ ...owner(), path: 'f/team/shared', value: mcp(2) });
  });

  it('a folder reader reads it but may not restore or clear; an unrelated user sees nothing at all', async () => {
    const reader = as(cast, cast.actors.reader);
    expect((await history.list({ ...reader, path: 'f/team/shared' })).versions).toHaveLength(2);
    expect(
      (await errorOf(() => history.restore({ ...reader, path: 'f/team/shared', version: 1 }))).code,
    ).toBe('PERMISSION_DENIED');
    expect((await errorOf(() => history.clear({ ...reader, path: 'f/team/shared' }))).code).toBe(
      'PERMISSION_DENIED',
    );

    const stranger = as(cast, cast.actors.stranger);
    for (const call of [
      () => history.list({ ...stranger, path: 'f/team/shared' }),
      () => history.get({ ...stranger, path: 'f/team/shared', version: 1 }),
      () => history.diff({ ...stranger, path: 'f/team/shared', from: 1, to: 2 }),
      () => history.restore({ ...stranger, path: 'f/team/shared', version: 1 }),
      () => history.clear({ ...stranger, path: 'f/team/shared' }),
    ]) {
      expect(await errorOf(call)).toMatchObject({
        code: 'NOT_FOUND',
        message: 'resource f/team/shared not found',
      });
    }
    expect(
      (await history.list({ ...as(cast, cast.actors.writer), path: 'f/team/shared' })).versions,
    ).toHaveLength(2);
  });

  it('over HTTP: list, show, diff, restore and clear under /api/w/:workspace/resources/', async () => {
    const base = `/api/w/${cast.workspace}/resources`;
    const writer = cast.actors.writer.token;
    const list = await cast.http('GET', `${base}/history/f/team/shared`, writer);
    expect(list.status).toBe(200);
    expect((list.body as Array<{ version: number }>).map((v) => v.version)).toEqual([2, 1]);
    expect(await cast.http('GET', `${base}/history/f/team/shared/1`, writer)).toMatchObject({
      status: 200,
      body: { version: 1, value: mcp(1) },
    });
    expect(await cast.http('GET', `${base}/history_diff/f/team/shared?from=1&to=2`, writer)).toMatchObject({
      status: 200,
      body: { changes: [{ op: 'changed', path: 'value.url', from: mcp(1).url, to: mcp(2).url }] },
    });
    expect(await cast.http('POST', `${base}/history_restore/f/team/shared/1`, writer)).toMatchObject({
      status: 200,
      body: { version: 3, restored_from: 1, created_by: 'writer' },
    });
    expect(await cast.http('POST', `${base}/history_clear/f/team/shared`, writer)).toMatchObject({
      status: 200,
      body: { removed: 2, kept: 3 },
    });
    expect(await cast.http('GET', `${base}/history_list/f/team/shared`, writer)).toMatchObject({
      status: 200,
      body: [{ version: 3 }],
    });
    expect(await cast.http('GET', `${base}/history/f/team/shared`, cast.actors.stranger.token)).toMatchObject(
      {
        status: 404,
        body: { code: 'NOT_FOUND' },
      },
    );
    expect(await cast.http('GET', `${base}/history_diff/f/team/shared?from=x&to=2`, writer)).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED' },
    });
  });
});
