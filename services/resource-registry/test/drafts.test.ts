import {
  createRegistryDraftsClient,
  createRegistryHistoryClient,
  type RegistryDraftsClient,
  type RegistryHistoryClient,
  type RegistryItemsClient,
} from '@flowmesh/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, countOf, errorOf, itemsClient } from './support/items-support.js';
import { startRegistryCast, type RegistryCast } from './support/registry-cast.js';

let cast: RegistryCast;
let items: RegistryItemsClient;
let drafts: RegistryDraftsClient;
let history: RegistryHistoryClient;

beforeAll(async () => {
  cast = await startRegistryCast();
  items = itemsClient(cast);
  drafts = createRegistryDraftsClient(cast.service.client);
  history = createRegistryHistoryClient(cast.service.client);
});

afterAll(async () => {
  await cast?.stop();
});

const owner = () => as(cast, cast.actors.owner);
const writer = () => as(cast, cast.actors.writer);

const agent = (prompt: string) => ({
  resource_type: 'ai_agent',
  value: {
    provider: { kind: 'openai', resource: '$res:f/team/openai', model: 'gpt-4o' },
    system_prompt: prompt,
    tools: [{ id: 'docs', value: { tool_type: 'mcp', resource_path: 'f/team/docs' } }],
  },
  description: 'the team agent',
});

describe('a draft’s lifecycle', () => {
  it('saving twice keeps one draft (same id, the newer value), listed for review', async () => {
    const first = await drafts.save({
      ...owner(),
      item_kind: 'resource',
      path: 'u/owner/agent',
      value: agent('v1'),
    });
    const second = await drafts.save({
      ...owner(),
      item_kind: 'resource',
      path: 'u/owner/agent',
      value: agent('v2'),
    });
    expect(second.id).toBe(first.id);
    expect(second.value).toEqual(agent('v2'));
    expect(Date.parse(second.updated_at)).toBeGreaterThanOrEqual(Date.parse(first.updated_at));
    const { drafts: listed } = await drafts.list(owner());
    expect(listed.filter((d) => d.path === 'u/owner/agent')).toEqual([
      {
        id: first.id,
        item_kind: 'resource',
        path: 'u/owner/agent',
        username: 'owner',
        created_at: first.created_at,
        updated_at: second.updated_at,
      },
    ]);
    expect(
      (await drafts.get({ ...owner(), draft: { item_kind: 'resource', path: 'u/owner/agent' } })).value,
    ).toEqual(agent('v2'));
  });

  it('deploy writes the item, appends a version and drops the draft', async () => {
    const deployed = await drafts.deploy({ ...owner(), item_kind: 'resource', path: 'u/owner/agent' });
    expect(deployed).toEqual({ item_kind: 'resource', path: 'u/owner/agent', created: true, version: 1 });
    expect((await items.getResource({ ...owner(), path: 'u/owner/agent' })).value).toEqual(agent('v2').value);
    expect(
      (await history.list({ ...owner(), path: 'u/owner/agent' })).versions.map((v) => v.version),
    ).toEqual([1]);
    expect(
      await errorOf(() =>
        drafts.get({ ...owner(), draft: { item_kind: 'resource', path: 'u/owner/agent' } }),
      ),
    ).toMatchObject({
      code: 'NOT_FOUND',
      message: 'no draft of resource u/owner/agent for user owner',
    });

    await drafts.save({ ...owner(), item_kind: 'resource', path: 'u/owner/agent', value: agent('v3') });
    expect(await drafts.deploy({ ...owner(), item_kind: 'resource', path: 'u/owner/agent' })).toMatchObject({
      created: false,
      version: 2,
    });
  });

  it('discard drops the draft and leaves the item as it was', async () => {
    await drafts.save({
      ...owner(),
      item_kind: 'resource',
      path: 'u/owner/agent',
      value: agent('never deployed'),
    });
    expect(await drafts.discard({ ...owner(), item_kind: 'resource', path: 'u/owner/agent' })).toEqual({
      discarded: true,
    });
    expect((await items.getResource({ ...owner(), path: 'u/owner/agent' })).value).toEqual(agent('v3').value);
    expect(
      (await errorOf(() => drafts.discard({ ...owner(), item_kind: 'resource', path: 'u/owner/agent' })))
        .code,
    ).toBe('NOT_FOUND');
  });

  it("two users' drafts of one item are independent; deploying one item leaves every other draft", async () => {
    await items.createResource({ ...owner(), path: 'f/team/agent', ...agent('deployed') });
    await drafts.save({
      ...owner(),
      item_kind: 'resource',
      path: 'f/team/agent',
      value: agent('owner edit'),
    });
    await drafts.save({
      ...writer(),
      item_kind: 'resource',
      path: 'f/team/agent',
      value: agent('writer edit'),
    });
    await drafts.save({
      ...writer(),
      item_kind: 'resource',
      path: 'f/team/other',
      value: agent('other item'),
    });

    await drafts.deploy({ ...writer(), item_kind: 'resource', path: 'f/team/agent' });
    expect((await items.getResource({ ...owner(), path: 'f/team/agent' })).value).toEqual(
      agent('writer edit').value,
    );
    expect(
      (await drafts.get({ ...owner(), draft: { item_kind: 'resource', path: 'f/team/agent' } })).value,
    ).toEqual(agent('owner edit'));
    expect(
      (await drafts.get({ ...writer(), draft: { item_kind: 'resource', path: 'f/team/other' } })).value,
    ).toEqual(agent('other item'));
    expect((await drafts.list(writer())).drafts.map((d) => d.path)).toEqual(['f/team/other']);
  });

  it('scripts and flows deploy through their own services (a new script version, an OpenFlow-checked flow)', async () => {
    const script = {
      language: 'bun',
      content: 'export function main(x: number) { return x * 2 }',
      summary: 'double',
    };
    await drafts.save({ ...owner(), item_kind: 'script', path: 'u/owner/double', value: script });
    expect(await drafts.deploy({ ...owner(), item_kind: 'script', path: 'u/owner/double' })).toEqual({
      item_kind: 'script',
      path: 'u/owner/double',
      created: true,
      version: null,
    });
    expect((await items.getScript({ ...owner(), path: 'u/owner/double' })).content).toBe(script.content);

    const flow = {
      summary: 'doubles',
      value: {
        modules: [{ id: 'a', value: { type: 'script', path: 'u/owner/double', input_transforms: {} } }],
      },
    };
    await drafts.save({ ...owner(), item_kind: 'flow', path: 'u/owner/doubles', value: flow });
    await drafts.deploy({ ...owner(), item_kind: 'flow', path: 'u/owner/doubles' });
    expect((await items.getFlow({ ...owner(), path: 'u/owner/doubles' })).value).toEqual(flow.value);
  });

  it('a draft that is not a valid item is refused at deploy with every problem; nothing is written and the draft stays', async () => {
    const before = await countOf(cast, 'flow');
    await drafts.save({
      ...owner(),
      item_kind: 'flow',
      path: 'u/owner/broken',
      value: { summary: 'x', value: { modules: [{ id: 'bad id' }] } },
    });
    const error = await errorOf(() =>
      drafts.deploy({ ...owner(), item_kind: 'flow', path: 'u/owner/broken' }),
    );
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toMatch(/^invalid flow u\/owner\/broken: value\.modules\[0\]/);
    expect(await countOf(cast, 'flow')).toBe(before);
    await drafts.get({ ...owner(), draft: { item_kind: 'flow', path: 'u/owner/broken' } });

    await drafts.save({ ...owner(), item_kind: 'resource', path: 'u/owner/typeless', value: { value: 1 } });
    expect(
      await errorOf(() => drafts.deploy({ ...owner(), item_kind: 'resource', path: 'u/owner/typeless' })),
    ).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(
        /^invalid draft of resource u\/owner\/typeless: resource_type: /,
      ) as string,
    });
  });

  it('only someone who may write the item may keep a draft of it', async () => {
    expect(
      (
        await errorOf(() =>
          drafts.save({
            ...as(cast, cast.actors.reader),
            item_kind: 'resource',
            path: 'f/team/agent',
            value: agent('x'),
          }),
        )
      ).code,
    ).toBe('PERMISSION_DENIED');
    expect(
      (
        await errorOf(() =>
          drafts.save({
            ...as(cast, cast.actors.stranger),
            item_kind: 'resource',
            path: 'u/owner/agent',
            value: agent('x'),
          }),
        )
      ).code,
    ).toBe('PERMISSION_DENIED');
  });
});

describe('reading a draft by id (what a preview job carries instead of the content)', () => {
  let draftId: string;

  beforeAll(async () => {
    draftId = (
      await drafts.save({
        ...owner(),
        item_kind: 'resource',
        path: 'f/team/secret_agent',
        value: agent('the secret prompt'),
      })
    ).id;
  });

  const notFound = {
    code: 'NOT_FOUND',
    message: expect.stringMatching(/^draft [0-9a-f-]{36} not found$/) as string,
  };

  it("is answered to the draft's user, and to a job running on their behalf", async () => {
    expect((await drafts.get({ ...owner(), draft: { id: draftId } })).value).toEqual(
      agent('the secret prompt'),
    );
    const unrestricted = await cast.registry.issueJobToken({
      ...owner(),
      jobId: 'preview-1',
      onBehalfOf: 'u/owner',
      ttlSeconds: 600,
    });
    expect(
      (
        await drafts.get({
          actor: { token: unrestricted.token },
          workspace: cast.workspace,
          draft: { id: draftId },
        })
      ).path,
    ).toBe('f/team/secret_agent');
    const scoped = await cast.registry.issueJobToken({
      ...owner(),
      jobId: 'preview-2',
      onBehalfOf: 'u/owner',
      scopes: ['drafts:read', 'resources:read:f/team/*'],
      ttlSeconds: 600,
    });
    expect(
      (
        await drafts.get({
          actor: { token: scoped.token },
          workspace: cast.workspace,
          draft: { id: draftId },
        })
      ).id,
    ).toBe(draftId);
  });

  it('to anyone else, an admin or a reader of the item included, it does not exist', async () => {
    for (const actor of ['admin', 'writer', 'reader', 'member', 'stranger'] as const) {
      expect(
        await errorOf(() => drafts.get({ ...as(cast, cast.actors[actor]), draft: { id: draftId } })),
      ).toMatchObject(notFound);
    }
    expect(
      await errorOf(() =>
        drafts.get({ ...as(cast, cast.actors.admin), draft: { id: '00000000-0000-4000-8000-000000000000' } }),
      ),
    ).toMatchObject(notFound);
    expect(
      (
        await errorOf(() =>
          drafts.get({
            ...writer(),
            draft: { item_kind: 'resource', path: 'f/team/secret_agent', username: 'owner' },
          }),
        )
      ).code,
    ).toBe('NOT_FOUND');
    // A job of the owner's whose scopes leave out drafts, or that item, gets nothing either.
    const narrowed = await cast.registry.issueJobToken({
      ...owner(),
      jobId: 'preview-3',
      onBehalfOf: 'u/owner',
      scopes: ['drafts:read', 'resources:read:u/owner/*'],
      ttlSeconds: 600,
    });
    expect(
      await errorOf(() =>
        drafts.get({ actor: { token: narrowed.token }, workspace: cast.workspace, draft: { id: draftId } }),
      ),
    ).toMatchObject(notFound);
    expect(
      await errorOf(() => drafts.get({ ...as(cast, cast.actors.job), draft: { id: draftId } })),
    ).toMatchObject(notFound);
  });

  it('nor to its own user once they may no longer read the item', async () => {
    const member = as(cast, cast.actors.member);
    const { id } = await drafts.save({
      ...member,
      item_kind: 'resource',
      path: 'f/team/member_agent',
      value: agent('member prompt'),
    });
    await drafts.get({ ...member, draft: { id } });
    await cast.registry.removeGroupMember({
      ...as(cast, cast.actors.admin),
      name: 'devs',
      username: 'member',
    });
    try {
      expect(await errorOf(() => drafts.get({ ...member, draft: { id } }))).toMatchObject(notFound);
      expect((await drafts.list(member)).drafts).toEqual([]);
    } finally {
      await cast.registry.addGroupMember({
        ...as(cast, cast.actors.admin),
        name: 'devs',
        username: 'member',
      });
    }
  });
});

describe('drafts over HTTP', () => {
  it('save, list, get, deploy and discard under /api/w/:workspace/drafts/', async () => {
    const base = `/api/w/${cast.workspace}/drafts`;
    const token = cast.actors.owner.token;
    const saved = await cast.http('POST', `${base}/save`, token, {
      item_kind: 'resource',
      path: 'u/owner/http_agent',
      value: agent('http'),
    });
    expect(saved).toMatchObject({
      status: 200,
      body: { item_kind: 'resource', path: 'u/owner/http_agent', username: 'owner' },
    });
    expect(await cast.http('GET', `${base}/list?item_kind=resource`, token)).toMatchObject({
      status: 200,
      body: expect.arrayContaining([expect.objectContaining({ path: 'u/owner/http_agent' })]) as unknown[],
    });
    expect(await cast.http('GET', `${base}/get/resource/u/owner/http_agent`, token)).toMatchObject({
      status: 200,
      body: { value: agent('http') },
    });
    expect(await cast.http('POST', `${base}/deploy/resource/u/owner/http_agent`, token)).toMatchObject({
      status: 200,
      body: { created: true, version: 1 },
    });
    await cast.http('POST', `${base}/save`, token, {
      item_kind: 'resource',
      path: 'u/owner/http_agent',
      value: agent('again'),
    });
    expect(await cast.http('POST', `${base}/discard/resource/u/owner/http_agent`, token)).toMatchObject({
      status: 200,
      body: { discarded: true },
    });
    expect(await cast.http('GET', `${base}/get/resource/u/owner/http_agent`, token)).toMatchObject({
      status: 404,
    });
    expect(await cast.http('GET', `${base}/get/app/u/owner/http_agent`, token)).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED' },
    });
    expect(
      await cast.http('POST', `${base}/save`, token, { item_kind: 'resource', path: 'nowhere', value: {} }),
    ).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED' },
    });
  });
});
