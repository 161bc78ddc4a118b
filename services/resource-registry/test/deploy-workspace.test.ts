import {
  createRegistryDeployClient,
  createRegistryHistoryClient,
  type DeployPlan,
  type RegistryDeployClient,
  type RegistryItemsClient,
} from '@flowmesh/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, errorOf, itemsClient } from './support/items-support.js';
import { startRegistryCast, type RegistryCast } from './support/registry-cast.js';

const STAGING = 'staging';

let cast: RegistryCast;
let items: RegistryItemsClient;
let deploy: RegistryDeployClient;
let pinnedHash: string;
/** Tokens made in staging: an API token works only in the workspace it was made in. */
const stagingTokens: Record<'owner' | 'reader', string> = { owner: '', reader: '' };

const owner = () => as(cast, cast.actors.owner);
const inStaging = (name: 'owner' | 'reader') => ({
  actor: { token: stagingTokens[name] },
  workspace: STAGING,
});
/** A deploy order to staging, the caller there being `name`. */
const toStaging = (name: 'owner' | 'reader' = 'owner') => ({
  target_workspace: STAGING,
  target_actor: { token: stagingTokens[name] },
});
const admin = () => as(cast, cast.actors.admin);

const provider = { kind: 'openai', resource: '$res:f/team/openai', model: 'gpt-4o' };
const researcher = (prompt: string) => ({
  provider,
  system_prompt: prompt,
  tools: [
    {
      id: 'lookup',
      summary: 'lookup',
      value: { tool_type: 'flowmodule', type: 'script', path: 'f/team/lookup', input_transforms: {} },
    },
    {
      id: 'report',
      summary: 'report',
      value: { tool_type: 'flowmodule', type: 'flow', path: 'f/team/report', input_transforms: {} },
    },
    { id: 'docs', value: { tool_type: 'mcp', resource_path: 'f/team/docs' } },
    {
      id: 'critic',
      summary: 'critic',
      value: { tool_type: 'flowmodule', type: 'aiagent', agent: 'f/team/critic', input_transforms: {} },
    },
  ],
});
const pipeline = () => ({
  summary: 'research pipeline',
  value: {
    modules: [
      { id: 'fetch', value: { type: 'script', path: 'f/team/lookup', input_transforms: {} } },
      {
        id: 'parse',
        value: { type: 'script', path: 'f/team/parse', hash: pinnedHash, input_transforms: {} },
      },
      { id: 'think', value: { type: 'aiagent', agent: 'f/team/researcher', input_transforms: {} } },
    ],
  },
});
const script = (content: string, summary = '') => ({ language: 'bun' as const, content, summary });

beforeAll(async () => {
  cast = await startRegistryCast();
  items = itemsClient(cast);
  deploy = createRegistryDeployClient(cast.service.client);

  // The target: owner may write f/team there; reader is a member with no role.
  await cast.registry.createWorkspace({ actor: admin().actor, id: STAGING, name: 'Staging' });
  for (const name of ['owner', 'reader'] as const) {
    await cast.registry.addUser({
      ...admin(),
      workspace: STAGING,
      email: `${name}@example.test`,
      username: name,
    });
    stagingTokens[name] = (
      await cast.registry.createApiToken({ ...admin(), workspace: STAGING, username: name, label: 'staging' })
    ).token;
  }
  await cast.registry.createFolder({ ...admin(), workspace: STAGING, name: 'team', owners: ['u/owner'] });

  // The source: a flow that needs scripts (one pinned by hash), an agent, which needs its
  // provider, a subflow, an MCP server and a nested agent; the provider needs a secret variable.
  await items.createVariable({
    ...owner(),
    path: 'f/team/openai_key',
    value: 'sk-source-secret',
    is_secret: true,
  });
  await items.createResource({
    ...owner(),
    path: 'f/team/openai',
    resource_type: 'openai',
    value: { api_key: '$var:f/team/openai_key' },
  });
  await items.createResource({
    ...owner(),
    path: 'f/team/docs',
    resource_type: 'mcp',
    value: { url: 'https://docs.example.test/mcp' },
  });
  await items.createScript({
    ...owner(),
    path: 'f/team/lookup',
    ...script('export function main() { return 1 }', 'lookup'),
  });
  pinnedHash = (
    await items.createScript({
      ...owner(),
      path: 'f/team/parse',
      ...script('export function main() { return "v1" }'),
    })
  ).hash;
  await items.updateScript({
    ...owner(),
    path: 'f/team/parse',
    ...script('export function main() { return "v2" }'),
  });
  await items.createFlow({
    ...owner(),
    path: 'f/team/report',
    summary: 'report',
    value: { modules: [{ id: 'r', value: { type: 'script', path: 'f/team/lookup', input_transforms: {} } }] },
  });
  await items.createResource({
    ...owner(),
    path: 'f/team/critic',
    resource_type: 'ai_agent',
    value: { provider, system_prompt: 'criticise' },
  });
  await items.createResource({
    ...owner(),
    path: 'f/team/researcher',
    resource_type: 'ai_agent',
    value: researcher('research well'),
  });
  await items.createFlow({ ...owner(), path: 'f/team/pipeline', ...pipeline() });
});

afterAll(async () => {
  await cast?.stop();
});

async function countIn(workspace: string): Promise<number> {
  const [row] = await cast.dataSource.query<Array<{ n: string }>>(
    `SELECT (SELECT count(*) FROM resource WHERE workspace_id = $1) + (SELECT count(*) FROM script_version WHERE workspace_id = $1)
          + (SELECT count(*) FROM flow_version WHERE workspace_id = $1) AS n`,
    [workspace],
  );
  return Number(row?.n ?? 0);
}

const entryKeys = (plan: Pick<DeployPlan, 'entries'>) =>
  plan.entries.map((e) => `${e.action} ${e.kind}:${e.path}${e.hash ? '@' : ''}`).sort();

describe('deploy to another workspace', () => {
  it('a dry run lists the item and everything it needs, writes nothing, and is not ready while a variable is missing', async () => {
    const before = await countIn(STAGING);
    const plan = await deploy.plan({
      ...owner(),
      ...toStaging(),
      items: [{ kind: 'flow', path: 'f/team/pipeline' }],
    });
    expect(entryKeys(plan)).toEqual(
      [
        'create flow:f/team/pipeline',
        'create script:f/team/lookup',
        'create script:f/team/parse@',
        'create resource:f/team/researcher',
        'create resource:f/team/openai',
        'create flow:f/team/report',
        'create resource:f/team/docs',
        'create resource:f/team/critic',
      ].sort(),
    );
    expect(plan.entries.at(-1)).toMatchObject({
      kind: 'flow',
      path: 'f/team/pipeline',
      requested: true,
      required_by: [],
    });
    expect(plan.entries.find((e) => e.path === 'f/team/parse')).toMatchObject({
      hash: pinnedHash,
      required_by: ['flow:f/team/pipeline'],
    });
    expect(plan.entries.find((e) => e.path === 'f/team/openai')?.required_by.sort()).toEqual([
      'resource:f/team/critic',
      'resource:f/team/researcher',
    ]);
    // Dependencies come before what needs them.
    const order = plan.entries.map((e) => e.path);
    expect(order.indexOf('f/team/openai')).toBeLessThan(order.indexOf('f/team/critic'));
    expect(order.indexOf('f/team/critic')).toBeLessThan(order.indexOf('f/team/researcher'));
    expect(plan.variables).toEqual([
      { path: 'f/team/openai_key', exists_in_target: false, required_by: ['resource:f/team/openai'] },
    ]);
    expect(plan.ready).toBe(false);
    expect(await countIn(STAGING)).toBe(before);

    expect(
      await errorOf(() =>
        deploy.apply({ ...owner(), ...toStaging(), items: [{ kind: 'flow', path: 'f/team/pipeline' }] }),
      ),
    ).toMatchObject({
      code: 'CONFLICT',
      message:
        'variable f/team/openai_key (needed by resource:f/team/openai) does not exist in workspace "staging"; variables are not deployed, create it there first',
    });
    expect(await countIn(STAGING)).toBe(before);
  });

  it('the real run writes it all: the pinned script version, the agents as written, a version per resource', async () => {
    await items.createVariable({
      ...inStaging('owner'),
      path: 'f/team/openai_key',
      value: 'sk-staging-secret',
      is_secret: true,
    });
    const result = await deploy.apply({
      ...owner(),
      ...toStaging(),
      items: [{ kind: 'flow', path: 'f/team/pipeline' }],
    });
    expect(result.written).toBe(8);
    const staging = inStaging('owner');
    expect((await items.getFlow({ ...staging, path: 'f/team/pipeline' })).value).toEqual(pipeline().value);
    expect((await items.getResource({ ...staging, path: 'f/team/researcher' })).value).toEqual(
      researcher('research well'),
    );
    expect((await items.getResource({ ...staging, path: 'f/team/openai' })).value).toEqual({
      api_key: '$var:f/team/openai_key',
    });
    expect((await items.getScript({ ...staging, path: 'f/team/parse', hash: pinnedHash })).content).toBe(
      'export function main() { return "v1" }',
    );
    expect((await items.getScript({ ...staging, path: 'f/team/lookup' })).summary).toBe('lookup');
    const history = createRegistryHistoryClient(cast.service.client);
    expect(
      (await history.list({ ...staging, path: 'f/team/critic' })).versions.map((v) => v.created_by),
    ).toEqual(['owner']);

    const again = await deploy.plan({
      ...owner(),
      ...toStaging(),
      items: [{ kind: 'flow', path: 'f/team/pipeline' }],
    });
    expect(new Set(again.entries.map((e) => e.action))).toEqual(new Set(['unchanged']));
    expect(again.ready).toBe(true);
  });

  it('refuses a target that exists and differs, and writes nothing at all; with overwrite it replaces it', async () => {
    await items.updateResourceValue({
      ...inStaging('owner'),
      path: 'f/team/docs',
      value: { url: 'https://staging-docs.example.test/mcp' },
    });
    await items.createScript({
      ...owner(),
      path: 'f/team/extra',
      ...script('export function main() { return 3 }'),
    });
    const extended = researcher('research better');
    extended.tools.push({
      id: 'extra',
      summary: 'extra',
      value: { tool_type: 'flowmodule', type: 'script', path: 'f/team/extra', input_transforms: {} },
    });
    await items.updateResourceValue({ ...owner(), path: 'f/team/researcher', value: extended });

    const order = { ...toStaging(), items: [{ kind: 'resource' as const, path: 'f/team/researcher' }] };
    const plan = await deploy.plan({ ...owner(), ...order });
    expect(
      plan.entries
        .filter((e) => e.action !== 'unchanged')
        .map((e) => `${e.action} ${e.path}`)
        .sort(),
    ).toEqual(['conflict f/team/docs', 'conflict f/team/researcher', 'create f/team/extra'].sort());
    expect(plan.ready).toBe(false);

    const before = await countIn(STAGING);
    expect(await errorOf(() => deploy.apply({ ...owner(), ...order }))).toMatchObject({
      code: 'CONFLICT',
      message:
        'resource f/team/docs exists in workspace "staging" and differs (and 1 more); deploy with overwrite to replace it',
    });
    expect(await countIn(STAGING)).toBe(before);
    expect((await errorOf(() => items.getScript({ ...inStaging('owner'), path: 'f/team/extra' }))).code).toBe(
      'NOT_FOUND',
    );

    const replaced = await deploy.apply({ ...owner(), ...order, overwrite: true });
    expect(
      replaced.entries
        .filter((e) => e.action !== 'unchanged')
        .map((e) => `${e.action} ${e.path}`)
        .sort(),
    ).toEqual(['update f/team/docs', 'update f/team/researcher', 'create f/team/extra'].sort());
    expect((await items.getResource({ ...inStaging('owner'), path: 'f/team/researcher' })).value).toEqual(
      extended,
    );
    expect((await items.getResource({ ...inStaging('owner'), path: 'f/team/docs' })).value).toEqual({
      url: 'https://docs.example.test/mcp',
    });
  });

  it('is all or nothing when a write fails midway: what was written before it is rolled back', async () => {
    await items.createResourceType({
      ...owner(),
      name: 'c_weather',
      schema: { type: 'object', properties: { city: { type: 'string' } } },
    });
    await items.createResource({
      ...owner(),
      path: 'f/team/weather',
      resource_type: 'c_weather',
      value: { city: 'Oslo' },
    });
    await items.createScript({
      ...owner(),
      path: 'f/team/first',
      ...script('export function main() { return "first" }'),
    });
    const before = await countIn(STAGING);
    const error = await errorOf(() =>
      deploy.apply({
        ...owner(),
        ...toStaging(),
        items: [
          { kind: 'script', path: 'f/team/first' },
          // The type exists only in the source, so this write fails in the target.
          { kind: 'resource', path: 'f/team/weather' },
        ],
      }),
    );
    expect(error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'resource_type: unknown resource type "c_weather"',
    });
    expect(await countIn(STAGING)).toBe(before);
    expect((await errorOf(() => items.getScript({ ...inStaging('owner'), path: 'f/team/first' }))).code).toBe(
      'NOT_FOUND',
    );
  });

  it('the caller must read every source item and write every target path', async () => {
    const reader = as(cast, cast.actors.reader);
    expect(
      await errorOf(() =>
        deploy.plan({
          ...reader,
          ...toStaging('reader'),
          items: [{ kind: 'resource', path: 'f/team/docs' }],
        }),
      ),
    ).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: 'reader may not write resource f/team/docs in workspace "staging"',
    });

    await items.createScript({
      ...owner(),
      path: 'u/owner/private_tool',
      ...script('export function main() { return 0 }'),
    });
    await items.createFlow({
      ...owner(),
      path: 'f/team/uses_private',
      summary: '',
      value: {
        modules: [{ id: 'p', value: { type: 'script', path: 'u/owner/private_tool', input_transforms: {} } }],
      },
    });
    await cast.registry.updateFolder({
      ...admin(),
      workspace: STAGING,
      name: 'team',
      owners: ['u/owner'],
      writers: ['u/reader'],
    });
    expect(
      await errorOf(() =>
        deploy.plan({
          ...reader,
          ...toStaging('reader'),
          items: [{ kind: 'flow', path: 'f/team/uses_private' }],
        }),
      ),
    ).toMatchObject({
      code: 'NOT_FOUND',
      message: 'script u/owner/private_tool not found (needed by flow:f/team/uses_private)',
    });

    expect(
      await errorOf(() =>
        deploy.plan({
          ...as(cast, cast.actors.stranger),
          ...toStaging(),
          items: [{ kind: 'flow', path: 'f/team/pipeline' }],
        }),
      ),
    ).toMatchObject({ code: 'NOT_FOUND' });
    // The caller's token from the source stands for them in the target only if it is valid there.
    expect(
      await errorOf(() =>
        deploy.plan({
          ...owner(),
          target_workspace: STAGING,
          items: [{ kind: 'flow', path: 'f/team/pipeline' }],
        }),
      ),
    ).toMatchObject({
      code: 'UNAUTHENTICATED',
      message: 'the token is not valid in workspace "staging"',
    });
    expect(
      await errorOf(() =>
        deploy.plan({
          ...owner(),
          target_workspace: 'main',
          items: [{ kind: 'flow', path: 'f/team/pipeline' }],
        }),
      ),
    ).toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });

  it('over HTTP: POST deploy/plan and deploy/apply', async () => {
    const base = `/api/w/${cast.workspace}/deploy`;
    const token = cast.actors.owner.token;
    const body = { ...toStaging(), items: [{ kind: 'flow', path: 'f/team/report' }] };
    expect(await cast.http('POST', `${base}/plan`, token, body)).toMatchObject({
      status: 200,
      body: {
        source_workspace: 'main',
        target_workspace: STAGING,
        ready: true,
        entries: expect.any(Array) as unknown[],
      },
    });
    expect(await cast.http('POST', `${base}/apply`, token, body)).toMatchObject({
      status: 200,
      body: { written: 0 },
    });
    expect(await cast.http('POST', `${base}/plan`, token, { ...body, items: [] })).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED' },
    });
  });
});
