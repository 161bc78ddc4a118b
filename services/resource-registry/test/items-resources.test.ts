import {
  AI_PROVIDER_KINDS,
  BUILTIN_RESOURCE_TYPES,
  type RegistryItemsClient,
  type ValidationIssue,
} from '@flowmesh/contracts';
import { waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinResourceTypesService } from '../src/resource-types/builtin-resource-types.service.js';
import { WriteResourcesUseCase } from '../src/resources/write-resources.use-case.js';
import { as, countOf, errorOf, EventTap, httpText, itemsClient } from './support/items-support.js';
import { startRegistryCast, type RegistryCast } from './support/registry-cast.js';

const MAX_VALUE_BYTES = 4096;

let cast: RegistryCast;
let items: RegistryItemsClient;
let events: EventTap;

beforeAll(async () => {
  cast = await startRegistryCast({ FLOWMESH_REGISTRY_MAX_VALUE_BYTES: String(MAX_VALUE_BYTES) });
  items = itemsClient(cast);
  events = new EventTap(cast);
});

afterAll(async () => {
  events?.stop();
  await cast?.stop();
});

const admin = () => as(cast, cast.actors.admin);
const owner = () => as(cast, cast.actors.owner);
const token = () => cast.actors.owner.token;

const agent = (extra: Record<string, unknown> = {}) => ({
  provider: { kind: 'openai', resource: '$res:u/owner/openai', model: 'gpt-4o' },
  system_prompt: 'You answer questions about invoices.',
  temperature: 0.2,
  max_completion_tokens: 1024,
  output_type: 'text',
  memory: { kind: 'window', context_length: 20 },
  streaming: true,
  max_iterations: 8,
  tools: [
    { id: 'docs', summary: 'docs', value: { tool_type: 'mcp', resource_path: 'u/owner/docs_mcp' } },
    {
      id: 'lookup',
      summary: 'lookup_invoice',
      value: { tool_type: 'flowmodule', type: 'script', path: 'f/team/lookup', input_transforms: {} },
    },
  ],
  ...extra,
});

describe('built-in resource types', () => {
  it('exist in the workspace: every AI provider kind, mcp, ai_agent, s3, postgresql, state and cache', async () => {
    const { resource_types: types } = await items.listResourceTypes(owner());
    const builtin = types.filter((type) => type.builtin).map((type) => type.name);
    expect(builtin).toEqual(
      expect.arrayContaining([...AI_PROVIDER_KINDS, 'mcp', 'ai_agent', 's3', 'postgresql', 'state', 'cache']),
    );
    const rows = await cast.dataSource.query<
      Array<{
        name: string;
      }>
    >(`SELECT name FROM resource_type WHERE workspace_id = 'main' AND builtin`);
    expect(rows.map((row) => row.name).sort()).toEqual(
      BUILTIN_RESOURCE_TYPES.map((type) => type.name).sort(),
    );
  });

  it("ai_agent's schema is generated from the OpenFlow model (AgentTool, ProviderConfig, MemoryConfig)", async () => {
    const { schema } = await items.getResourceType({ ...owner(), name: 'ai_agent' });
    expect(Object.keys(schema.$defs as object)).toEqual(
      expect.arrayContaining(['AgentTool', 'ProviderConfig', 'MemoryConfig', 'ToolValue']),
    );
    expect(schema.properties).toMatchObject({
      provider: { $ref: '#/$defs/ProviderConfig' },
      tools: { type: 'array', items: { $ref: '#/$defs/AgentTool' } },
      temperature: { type: 'number', minimum: 0, maximum: 2 },
    });
  });

  it('are refreshed idempotently at start-up: a second sync writes nothing, a drifted row is put back', async () => {
    const sync = cast.service.running.app.get(BuiltinResourceTypesService);
    await cast.dataSource.query(
      `UPDATE resource_type SET schema = '{}'::jsonb WHERE workspace_id = 'main' AND name = 's3'`,
    );
    await sync.onApplicationBootstrap();
    const { schema } = await items.getResourceType({ ...owner(), name: 's3' });
    expect(schema.required).toEqual(['bucket', 'region']);
    const before = await cast.dataSource.query<unknown[]>(`SELECT max(edited_at) AS t FROM resource_type`);
    await sync.onApplicationBootstrap();
    expect(await cast.dataSource.query(`SELECT max(edited_at) AS t FROM resource_type`)).toEqual(before);
  });

  it('cannot be changed, deleted, or shadowed by a custom type', async () => {
    expect(
      await errorOf(() => items.updateResourceType({ ...admin(), name: 'openai', schema: {} })),
    ).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: 'resource type "openai" is built in and cannot be changed or deleted',
    });
    expect((await errorOf(() => items.deleteResourceType({ ...admin(), name: 'ai_agent' }))).code).toBe(
      'PERMISSION_DENIED',
    );
    expect(
      (await errorOf(() => items.createResourceType({ ...admin(), name: 'mcp', schema: {} }))).code,
    ).toBe('CONFLICT');
  });
});

describe('resource values against their type', () => {
  it('an ai_agent with its brain and tools is accepted and read back as written', async () => {
    const value = agent();
    await items.createResource({
      ...owner(),
      path: 'u/owner/invoice_agent',
      resource_type: 'ai_agent',
      value,
    });
    expect((await items.getResourceValue({ ...owner(), path: 'u/owner/invoice_agent' })).value).toEqual(
      value,
    );
  });

  it('an invalid value is refused with every violation and its path, and nothing is written', async () => {
    const resources = await countOf(cast, 'resource');
    const outbox = await countOf(cast, 'outbox_message');
    const bad = agent({
      provider: { kind: 'openai', resource: '$res:u/owner/openai' },
      temperature: 3,
      systemprompt: 'typo',
      tools: [{ id: 'docs', value: { tool_type: 'mcp' } }],
    });
    const error = await errorOf(() =>
      items.createResource({ ...owner(), path: 'u/owner/bad_agent', resource_type: 'ai_agent', value: bad }),
    );
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toMatch(
      /^invalid value for resource type "ai_agent": value\.\S+: .+ \(and \d+ more\)$/,
    );
    const issues = (error.details as { issues: ValidationIssue[] }).issues;
    expect(issues.map((issue) => issue.path)).toEqual(
      expect.arrayContaining([
        'value.provider.model',
        'value.temperature',
        'value.tools[0].value.resource_path',
      ]),
    );
    expect(
      issues.some((issue) => issue.path.startsWith('value') && issue.message.includes('systemprompt')),
    ).toBe(true);
    expect(await countOf(cast, 'resource')).toBe(resources);
    expect(await countOf(cast, 'outbox_message')).toBe(outbox);
  });

  it("an agent's tools follow the OpenFlow rules the schema cannot state: a flowmodule tool's summary is its name", async () => {
    const script = (summary: string, id: string) => ({
      id,
      summary,
      value: { tool_type: 'flowmodule', type: 'script', path: 'f/team/x', input_transforms: {} },
    });
    const error = await errorOf(() =>
      items.createResource({
        ...owner(),
        path: 'u/owner/badly_named_tools',
        resource_type: 'ai_agent',
        value: agent({ tools: [script('look up', 'a'), script('ok_name', 'b'), script('ok_name', 'c')] }),
      }),
    );
    expect(error.code).toBe('VALIDATION_FAILED');
    expect((error.details as { issues: ValidationIssue[] }).issues).toEqual([
      {
        path: 'value.tools[0].summary',
        message: expect.stringContaining('must match ^[a-zA-Z0-9_]+$') as string,
      },
      {
        path: 'value.tools[2].summary',
        message: 'duplicate tool name "ok_name"; already used at value.tools[1].summary',
      },
    ]);
  });

  it('provider credentials follow their kind: aws_bedrock needs a region, customai a base URL', async () => {
    const bedrock = await errorOf(() =>
      items.createResource({
        ...owner(),
        path: 'u/owner/bedrock',
        resource_type: 'aws_bedrock',
        value: { api_key: 'k' },
      }),
    );
    expect((bedrock.details as { issues: ValidationIssue[] }).issues).toContainEqual({
      path: 'value.region',
      message: expect.any(String) as string,
    });
    await items.createResource({
      ...owner(),
      path: 'u/owner/local_llm',
      resource_type: 'customai',
      value: { base_url: 'http://127.0.0.1:11434/v1', custom_headers: { 'x-team': 'a' } },
    });
  });

  it('a custom type validates with ajv; draft-07 schemas work; an invalid schema is refused', async () => {
    await items.createResourceType({
      ...owner(),
      name: 'c_weather',
      schema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { city: { type: 'string', minLength: 2 }, units: { enum: ['metric', 'imperial'] } },
        required: ['city'],
        additionalProperties: false,
      },
      description: 'weather API settings',
    });
    const error = await errorOf(() =>
      items.createResource({
        ...owner(),
        path: 'u/owner/w',
        resource_type: 'c_weather',
        value: { city: 'X', units: 'kelvin', x: 1 },
      }),
    );
    expect((error.details as { issues: ValidationIssue[] }).issues).toEqual(
      expect.arrayContaining([
        { path: 'value.city', message: 'must NOT have fewer than 2 characters' },
        { path: 'value.units', message: 'must be one of "metric", "imperial"' },
        { path: 'value.x', message: 'is not an allowed property' },
      ]),
    );
    await items.createResource({
      ...owner(),
      path: 'u/owner/w',
      resource_type: 'c_weather',
      value: { city: 'Oslo' },
    });

    expect(
      await errorOf(() =>
        items.createResourceType({
          ...owner(),
          name: 'c_broken',
          schema: { type: 'object', properties: { a: { type: 'nope' } } },
        }),
      ),
    ).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/^schema is not a valid JSON Schema: /) as string,
    });
  });

  it('a custom type in use cannot be deleted; its creator can change it, others cannot', async () => {
    await items.createResourceType({ ...owner(), name: 'c_counter', schema: { type: 'integer' } });
    await items.createResource({ ...owner(), path: 'u/owner/count', resource_type: 'c_counter', value: 3 });
    expect(await errorOf(() => items.deleteResourceType({ ...owner(), name: 'c_counter' }))).toMatchObject({
      code: 'CONFLICT',
      message: 'resource type "c_counter" is used by 1 resource(s); delete them first',
    });
    expect(
      (
        await errorOf(() =>
          items.updateResourceType({
            ...as(cast, cast.actors.stranger),
            name: 'c_counter',
            description: 'x',
          }),
        )
      ).code,
    ).toBe('PERMISSION_DENIED');
    await items.updateResourceType({
      ...owner(),
      name: 'c_counter',
      schema: { type: 'integer', minimum: 0 },
    });
    expect(
      (await errorOf(() => items.updateResourceValue({ ...owner(), path: 'u/owner/count', value: -1 }))).code,
    ).toBe('VALIDATION_FAILED');
    await items.deleteResource({ ...owner(), path: 'u/owner/count' });
    await items.deleteResourceType({ ...owner(), name: 'c_counter' });
  });
});

describe('bad input: a clear error and nothing written', () => {
  const cases: Array<[string, () => Promise<unknown>, { code: string | RegExp; message: RegExp }]> = [
    [
      'a malformed path',
      () => items.createResource({ ...owner(), path: 'owner/x', resource_type: 'state', value: 1 }),
      { code: 'VALIDATION_FAILED', message: /path "owner\/x" must start with u\/<user>\/ or f\/<folder>\// },
    ],
    [
      'a value over FLOWMESH_REGISTRY_MAX_VALUE_BYTES',
      () =>
        items.createResource({
          ...owner(),
          path: 'u/owner/big',
          resource_type: 'state',
          value: 'x'.repeat(MAX_VALUE_BYTES),
        }),
      {
        code: 'LIMIT_EXCEEDED',
        message:
          /^the value of resource u\/owner\/big is 4098 bytes, over the limit of 4096 \(FLOWMESH_REGISTRY_MAX_VALUE_BYTES\)$/,
      },
    ],
    [
      'an unknown type',
      () => items.createResource({ ...owner(), path: 'u/owner/t', resource_type: 'no_such_type', value: {} }),
      { code: 'VALIDATION_FAILED', message: /^resource_type: unknown resource type "no_such_type"$/ },
    ],
    [
      'an unknown workspace',
      () =>
        items.createResource({
          actor: { token: token() },
          workspace: 'nowhere',
          path: 'u/owner/t',
          resource_type: 'state',
          value: {},
        }),
      // Identity decides the code (a token is bound to its workspace); the answer names the workspace.
      { code: /^(NOT_FOUND|UNAUTHENTICATED)$/, message: /workspace "nowhere"/ },
    ],
    [
      'no value at all',
      () => items.createResource({ ...owner(), path: 'u/owner/t', resource_type: 'state' } as never),
      { code: 'VALIDATION_FAILED', message: /value: is required/ },
    ],
  ];

  it.each(cases)('%s', async (_, action, expected) => {
    const before = [await countOf(cast, 'resource'), await countOf(cast, 'outbox_message')];
    const error = await errorOf(action);
    expect(error.code).toMatch(expected.code);
    expect(error.message).toMatch(expected.message);
    expect([await countOf(cast, 'resource'), await countOf(cast, 'outbox_message')]).toEqual(before);
  });

  it('over HTTP: 400 with the message for a schema violation, 404 for an unreadable resource', async () => {
    const bad = await cast.http('POST', '/api/w/main/resources/create', token(), {
      path: 'u/owner/http_bad',
      resource_type: 'postgresql',
      value: { host: 'db', port: 'five' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('value.') as string,
    });
    const hidden = await cast.http(
      'GET',
      '/api/w/main/resources/get/u/owner/invoice_agent',
      cast.actors.stranger.token,
    );
    expect(hidden).toEqual({
      status: 404,
      body: {
        code: 'NOT_FOUND',
        message: 'resource u/owner/invoice_agent not found',
        details: { path: 'u/owner/invoice_agent' },
      },
    });
    const missing = await cast.http(
      'GET',
      '/api/w/main/resources/get/u/stranger/nothing',
      cast.actors.stranger.token,
    );
    expect(missing.status).toBe(404);
    expect((missing.body as { message: string }).message).toBe('resource u/stranger/nothing not found');
  });
});

describe('the Windmill-shaped HTTP API', () => {
  it('create (201, the path as text), get, get_value, update_value, rename, exists, list, delete', async () => {
    const created = await httpText(cast, 'POST', '/api/w/main/resources/create', token(), {
      path: 'f/team/db',
      resource_type: 'postgresql',
      value: { host: 'db', user: 'app', dbname: 'app' },
      description: 'team db',
    });
    expect(created).toEqual({ status: 201, text: 'f/team/db', contentType: 'text/plain; charset=utf-8' });

    const got = await cast.http('GET', '/api/w/main/resources/get/f/team/db', cast.actors.reader.token);
    expect(got.body).toMatchObject({
      path: 'f/team/db',
      resource_type: 'postgresql',
      description: 'team db',
      created_by: 'owner',
    });
    expect(
      await httpText(cast, 'POST', '/api/w/main/resources/update_value/f/team/db', token(), {
        value: { host: 'db2', user: 'app', dbname: 'app' },
      }),
    ).toMatchObject({ status: 200, text: 'f/team/db' });
    expect((await cast.http('GET', '/api/w/main/resources/get_value/f/team/db', token())).body).toEqual({
      host: 'db2',
      user: 'app',
      dbname: 'app',
    });
    expect(
      (
        await cast.http('POST', '/api/w/main/resources/update_value/f/team/db', cast.actors.reader.token, {
          value: {},
        })
      ).status,
    ).toBe(403);

    expect(
      await httpText(cast, 'POST', '/api/w/main/resources/update/f/team/db', token(), {
        path: 'f/team/sub/db',
        description: 'moved',
      }),
    ).toMatchObject({ status: 200, text: 'f/team/sub/db' });
    expect((await cast.http('GET', '/api/w/main/resources/exists/f/team/db', token())).body).toBe(false);
    expect((await cast.http('GET', '/api/w/main/resources/exists/f/team/sub/db', token())).body).toBe(true);
    expect(
      (await cast.http('GET', '/api/w/main/resources/exists/f/team/sub/db', cast.actors.stranger.token)).body,
    ).toBe(false);

    const listed = await cast.http(
      'GET',
      '/api/w/main/resources/list?resource_type=postgresql,s3',
      cast.actors.member.token,
    );
    expect(listed.body).toEqual([
      expect.objectContaining({ path: 'f/team/sub/db', resource_type: 'postgresql', description: 'moved' }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain('db2');

    expect(
      (await httpText(cast, 'DELETE', '/api/w/main/resources/delete/f/team/sub/db', token())).status,
    ).toBe(200);
    expect((await cast.http('GET', '/api/w/main/resources/get/f/team/sub/db', token())).status).toBe(404);
  });

  it('resource types: create, get, list, update, delete', async () => {
    const schema = {
      type: 'object',
      properties: { url: { type: 'string', format: 'uri' } },
      required: ['url'],
    };
    expect(
      await httpText(cast, 'POST', '/api/w/main/resources/type/create', token(), { name: 'c_http', schema }),
    ).toMatchObject({
      status: 201,
      text: 'c_http',
    });
    expect(
      (await cast.http('GET', '/api/w/main/resources/type/get/c_http', cast.actors.stranger.token)).body,
    ).toMatchObject({
      name: 'c_http',
      schema,
      builtin: false,
      created_by: 'owner',
    });
    const listed = (await cast.http('GET', '/api/w/main/resources/type/list', token())).body as Array<{
      name: string;
    }>;
    expect(listed.map((type) => type.name)).toEqual(expect.arrayContaining(['c_http', 'ai_agent', 'openai']));
    const bad = await cast.http('POST', '/api/w/main/resources/create', token(), {
      path: 'u/owner/h',
      resource_type: 'c_http',
      value: { url: 'not a uri' },
    });
    expect(bad.body).toMatchObject({
      details: { issues: [{ path: 'value.url', message: 'must match format "uri"' }] },
    });
    expect(
      (
        await httpText(cast, 'POST', '/api/w/main/resources/type/update/c_http', token(), {
          description: 'an HTTP API',
        })
      ).status,
    ).toBe(200);
    expect((await httpText(cast, 'DELETE', '/api/w/main/resources/type/delete/c_http', token())).status).toBe(
      200,
    );
    expect((await cast.http('GET', '/api/w/main/resources/type/get/c_http', token())).status).toBe(404);
  });

  it('paths with any depth route through the wildcard; a malformed one is a 400', async () => {
    expect(
      (
        await httpText(cast, 'POST', '/api/w/main/resources/create', token(), {
          path: 'u/owner/a/b/c',
          resource_type: 'state',
          value: null,
        })
      ).status,
    ).toBe(201);
    expect((await cast.http('GET', '/api/w/main/resources/get_value/u/owner/a/b/c', token())).body).toBe(
      null,
    );
    const malformed = await cast.http('GET', '/api/w/main/resources/get/x/owner/a', token());
    expect(malformed).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_FAILED',
        message: expect.stringContaining('must start with u/<user>/ or f/<folder>/') as string,
      },
    });
  });
});

describe('events', () => {
  it('one per write, in order, with workspace and path and never the value', async () => {
    const path = 'u/owner/evented';
    await items.createResource({
      ...owner(),
      path,
      resource_type: 'state',
      value: { secret: 'state-value-123' },
    });
    await items.updateResourceValue({ ...owner(), path, value: { secret: 'state-value-456' } });
    await items.deleteResource({ ...owner(), path });
    const seen = await waitFor(() => (events.of(path).length >= 3 ? events.of(path) : undefined), {
      description: 'three events',
    });
    expect(seen.map((event) => `${event.kind}.${event.change}`)).toEqual([
      'resource.created',
      'resource.updated',
      'resource.deleted',
    ]);
    expect(seen[0]).toMatchObject({ workspace: 'main', path, resource_type: 'state', by: 'owner' });
    expect(JSON.stringify(seen)).not.toContain('state-value');

    // Nothing more arrives for it: a later write's event comes after everything before it.
    await items.createResource({ ...owner(), path: 'u/owner/marker', resource_type: 'state', value: 1 });
    await waitFor(() => events.of('u/owner/marker').length === 1, { description: 'the marker event' });
    expect(events.of(path)).toHaveLength(3);
  });

  it('a write rolled back with the transaction it ran in publishes nothing and leaves nothing', async () => {
    const writer = cast.service.running.app.get(WriteResourcesUseCase);
    const identity = await cast.service.running.app
      .get((await import('../src/access/access.service.js')).AccessService)
      .authenticate(token(), 'main');
    const rollback = new Error('roll back');
    await expect(
      cast.dataSource.transaction(async (manager) => {
        await writer.create(
          identity,
          { path: 'u/owner/rolled_back', resourceType: 'state', value: 1 },
          { manager },
        );
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    await items.createResource({
      ...owner(),
      path: 'u/owner/after_rollback',
      resource_type: 'state',
      value: 1,
    });
    await waitFor(() => events.of('u/owner/after_rollback').length === 1, { description: 'the later event' });
    expect(events.of('u/owner/rolled_back')).toEqual([]);
    expect((await items.resourceExists({ ...owner(), path: 'u/owner/rolled_back' })).exists).toBe(false);
  });
});
