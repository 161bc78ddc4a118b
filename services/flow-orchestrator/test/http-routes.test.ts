import { createHmac, randomUUID } from 'node:crypto';
import { createOrchestratorHttpTriggersClient, matchHttpRoute, type MeshError } from '@flowmesh/contracts';
import { startTestService, waitFor, type TestService } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowOrchestratorDefinition } from '../src/flow-orchestrator.definition.js';
import { scriptStep, startRunApiMesh, type Member, type RunApiMesh } from './support/run-api-mesh.js';

/** The orchestrator's body limit in this test: small, so a 413 costs little. */
const BODY_LIMIT = 64 * 1024;

interface RouteAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  json<T = unknown>(): T;
}

// HTTP routes (Windmill's HTTP triggers) on the real registry, orchestrator and worker: their API
// over HTTP and NATS, and the routes served at /api/r with each authentication mode.
describe('HTTP routes', () => {
  let mesh: RunApiMesh;
  const inMain = () => ({ actor: { token: mesh.tokens.admin }, workspace: 'main' });

  beforeAll(async () => {
    mesh = await startRunApiMesh({ orchestratorEnv: { FLOWMESH_HTTP_BODY_LIMIT_BYTES: String(BODY_LIMIT) } });
    await mesh.items.createScript({
      ...inMain(),
      path: 'u/admin/echo',
      summary: 'echo',
      language: 'bun',
      content:
        'export async function main(name?: string, body?: unknown, raw_string?: string) { return { name, body, raw_string }; }',
    });
    await mesh.items.createScript({
      ...inMain(),
      path: 'u/admin/fails',
      summary: 'fails',
      language: 'bun',
      content: "export async function main() { throw new Error('route broke'); }",
    });
    await mesh.items.createScript({
      ...inMain(),
      path: 'u/admin/teapot',
      summary: 'composite result',
      language: 'bun',
      content:
        "export async function main() { return { windmill_status_code: 418, windmill_content_type: 'text/plain', windmill_headers: { 'x-brew': 'tea' }, result: 'short and stout' }; }",
    });
    await mesh.items.createFlow({
      ...inMain(),
      path: 'u/admin/route_flow',
      summary: 'a flow whose preprocessor reads the request',
      value: {
        preprocessor_module: {
          id: 'preprocessor',
          value: {
            type: 'rawscript',
            language: 'bun',
            content:
              'export function preprocessor(event: any) { const { kind, route, path, method, params, query, headers, body, raw_string } = event; return { seen: { kind, route, path, method, params, query, headers, body, raw_string } }; }',
            input_transforms: { event: { type: 'javascript', expr: 'flow_input.event' } },
          },
        },
        modules: [scriptStep('out', 'return seen;', { seen: 'flow_input.seen' })],
      },
    });
    await mesh.items.createResourceType({ ...inMain(), name: 'http_auth', schema: {} });
    const resources: Record<string, unknown> = {
      'u/admin/api_key': { api_key_header: 'X-Api-Key', api_key_secret: 'k3y-secret' },
      'u/admin/basic': { username: 'hook', password: 'pa:ss' },
      'u/admin/github': { signature_provider: 'Github', secret_key: 'gh-secret' },
      'u/admin/stripe': { signature_provider: 'Stripe', secret_key: 'whsec_test' },
      'u/admin/not_auth': { something: 'else' },
    };
    for (const [path, value] of Object.entries(resources))
      await mesh.items.createResource({ ...inMain(), path, resource_type: 'http_auth', value });
  }, 120_000);

  afterAll(async () => {
    await mesh?.stop();
  });

  const route = async (
    method: string,
    path: string,
    init: { headers?: Record<string, string>; body?: string | Buffer; base?: string } = {},
  ): Promise<RouteAnswer> => {
    const response = await fetch(`${init.base ?? mesh.orchestrator.url}/api/r/${path}`, {
      method,
      headers: init.headers ?? {},
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, json: <T>() => JSON.parse(text) as T };
  };
  const create = (trigger: Record<string, unknown>, as: Member = 'admin') =>
    mesh.http('POST', 'http_triggers/create', as, {
      script_path: 'u/admin/echo',
      is_flow: false,
      http_method: 'post',
      authentication_method: 'none',
      is_static_website: false,
      ...trigger,
    });
  const jobsOf = async (triggerPath: string) => {
    const answer = await mesh.http('GET', 'jobs/list?per_page=1000', 'admin');
    return answer
      .json<Array<{ id: string; trigger?: string | null; trigger_kind?: string | null }>>()
      .filter((job) => job.trigger_kind === 'http' && job.trigger === triggerPath);
  };
  const result = (id: string) =>
    waitFor(
      async () => {
        const answer = await mesh.http('GET', `jobs_u/completed/get_result_maybe/${id}`, 'admin');
        const body = answer.json<{ completed: boolean; success?: boolean; result: unknown }>();
        return body.completed ? body : undefined;
      },
      { timeoutMs: 60_000, description: `job ${id} to complete` },
    );
  const json = (value: unknown) => ({
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value),
  });

  it('saves routes with Windmill’s API and refuses bad ones naming the field', async () => {
    const created = await create({
      path: 'u/admin/items',
      route_path: 'items/:id',
      request_type: 'async',
      summary: 'items',
    });
    expect([created.status, created.text]).toEqual([201, 'u/admin/items']);
    const got = await mesh.http('GET', 'http_triggers/get/u/admin/items', 'admin');
    expect(got.json()).toMatchObject({
      path: 'u/admin/items',
      route_path: 'items/:id',
      route_path_key: 'items/:',
      http_method: 'post',
      request_type: 'async',
      is_async: true,
      authentication_method: 'none',
      workspaced_route: false,
      mode: 'enabled',
      enabled: true,
      edited_by: 'admin',
      permissioned_as: 'u/admin',
      email: 'admin@example.test',
    });
    expect(got.json()).not.toHaveProperty('owner_token_sealed');
    expect((await mesh.http('GET', 'http_triggers/exists/u/admin/items', 'admin')).json()).toBe(true);
    expect((await mesh.http('GET', 'http_triggers/exists/u/admin/nothing', 'admin')).json()).toBe(false);
    const listed = await mesh.http('GET', 'http_triggers/list?path_start=u/admin/items', 'admin');
    expect(listed.json<Array<{ path: string }>>().map((trigger) => trigger.path)).toEqual(['u/admin/items']);

    const refused = async (body: Record<string, unknown>, as: Member = 'admin') => {
      const answer = await create(body, as);
      const envelope = answer.json<{ code: string; details?: { issues?: Array<{ path: string }> } }>();
      return [answer.status, envelope.code, envelope.details?.issues?.map((issue) => issue.path).join(',')];
    };
    expect(await refused({ path: 'u/admin/bad', route_path: '/items' })).toEqual([
      400,
      'VALIDATION_FAILED',
      'route_path',
    ]);
    expect(await refused({ path: 'u/admin/bad', route_path: 'a', http_method: 'head' })).toEqual([
      400,
      'VALIDATION_FAILED',
      'http_method',
    ]);
    expect(await refused({ path: 'u/admin/bad', route_path: 'a', script_path: 'u/admin/none' })).toEqual([
      400,
      'VALIDATION_FAILED',
      'script_path',
    ]);
    expect(await refused({ path: 'u/admin/bad', route_path: 'a', authentication_method: 'api_key' })).toEqual(
      [400, 'VALIDATION_FAILED', 'authentication_resource_path'],
    );
    for (const resource of ['u/admin/missing', 'u/admin/not_auth'])
      expect(
        await refused({
          path: 'u/admin/bad',
          route_path: 'a',
          authentication_method: 'api_key',
          authentication_resource_path: resource,
        }),
      ).toEqual([400, 'VALIDATION_FAILED', 'authentication_resource_path']);
    // One route per path and method, whatever the parameter's name; another method is free.
    expect(await refused({ path: 'u/admin/dup', route_path: 'items/:name' })).toEqual([
      409,
      'CONFLICT',
      'route_path',
    ]);
    expect(
      (await create({ path: 'u/admin/items_get', route_path: 'items/:id', http_method: 'get' })).status,
    ).toBe(201);
    expect((await refused({ path: 'u/admin/items', route_path: 'other' }))[0]).toBe(409);

    // A member: only in the workspace's own namespace, and only on what they may run.
    expect((await refused({ path: 'u/bob/r', route_path: 'bob' }, 'bob')).slice(0, 2)).toEqual([
      403,
      'PERMISSION_DENIED',
    ]);
    expect(
      await refused(
        { path: 'u/bob/r', route_path: 'bob', workspaced_route: true, script_path: 'u/admin/echo' },
        'bob',
      ),
    ).toEqual([400, 'VALIDATION_FAILED', 'script_path']);
    expect((await mesh.http('GET', 'http_triggers/get/u/admin/items', 'bob')).status).toBe(404);
    expect((await mesh.http('GET', 'http_triggers/list', 'bob')).json()).toEqual([]);
    expect((await mesh.http('DELETE', 'http_triggers/delete/u/admin/items', 'bob')).status).toBe(404);
  }, 60_000);

  it('serves a route without auth: params, async (201 and the job id), 404, 405, 413', async () => {
    const started = await route('POST', 'items/42?x=1', json({ name: 'ada' }));
    expect(started.status).toBe(201);
    const done = await result(started.text);
    expect(done).toMatchObject({ success: true, result: { name: 'ada' } });
    const job = (await mesh.http('GET', `jobs_u/get/${started.text}`, 'admin')).json<
      Record<string, unknown>
    >();
    expect(job).toMatchObject({ trigger_kind: 'http', trigger: 'u/admin/items', permissioned_as: 'u/admin' });
    expect(job.args).toEqual({ name: 'ada' });

    const missing = await route('POST', 'nothing/here');
    expect([missing.status, missing.json<{ code: string }>().code]).toEqual([404, 'NOT_FOUND']);
    expect((await route('POST', 'items')).status).toBe(404);
    const wrongMethod = await route('PUT', 'items/42');
    expect([wrongMethod.status, wrongMethod.headers.get('allow')]).toEqual([405, 'GET, POST']);
    const preflight = await route('OPTIONS', 'items/42');
    expect([
      preflight.status,
      preflight.headers.get('allow'),
      preflight.headers.get('access-control-allow-origin'),
    ]).toEqual([204, 'GET, POST', '*']);
    expect((await route('HEAD', 'items/42')).status).toBe(200);
    expect((await route('OPTIONS', 'nothing/here')).status).toBe(404);
    const before = (await jobsOf('u/admin/items')).length;
    const tooLarge = await route('POST', 'items/42', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(BODY_LIMIT) }),
    });
    expect([tooLarge.status, tooLarge.json<{ code: string }>().code]).toEqual([413, 'LIMIT_EXCEEDED']);
    // Streamed without a length, the body is cut at the limit all the same.
    const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
    const streamed = await fetch(`${mesh.orchestrator.url}/api/r/items/42`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          for (let sent = 0; sent <= BODY_LIMIT; sent += chunk.length) controller.enqueue(chunk);
          controller.close();
        },
      }),
      duplex: 'half',
    });
    expect(streamed.status).toBe(413);
    expect((await jobsOf('u/admin/items')).length).toBe(before);

    const deep = await route('POST', 'items/42', json(JSON.parse('['.repeat(200) + ']'.repeat(200))));
    expect([deep.status, deep.json<{ code: string }>().code]).toEqual([400, 'VALIDATION_FAILED']);
    const notJson = await route('POST', 'items/42', {
      headers: { 'content-type': 'application/json' },
      body: '{nope',
    });
    expect([notJson.status, notJson.json<{ code: string }>().code]).toEqual([400, 'VALIDATION_FAILED']);
    expect((await jobsOf('u/admin/items')).length).toBe(before);

    // A form's fields are the arguments.
    const form = await route('POST', 'items/7', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=from+a+form',
    });
    expect((await result(form.text)).result).toMatchObject({ name: 'from a form' });

    // Disabled, a route is gone (its path's GET route still answers); enabled again, it answers.
    expect(
      (await mesh.http('POST', 'http_triggers/setenabled/u/admin/items', 'admin', { enabled: false })).status,
    ).toBe(200);
    const disabled = await route('POST', 'items/1', json({}));
    expect([disabled.status, disabled.headers.get('allow')]).toEqual([405, 'GET']);
    await mesh.http('POST', 'http_triggers/setmode/u/admin/items', 'admin', { mode: 'enabled' });
    expect((await route('POST', 'items/1', json({}))).status).toBe(201);
  }, 60_000);

  it('sync routes answer the result, 500 when the run failed, and Windmill’s composite results', async () => {
    for (const [path, script] of [
      ['u/admin/sync_echo', 'u/admin/echo'],
      ['u/admin/sync_fails', 'u/admin/fails'],
      ['u/admin/sync_teapot', 'u/admin/teapot'],
    ] as const)
      expect(
        (await create({ path, route_path: path.replaceAll('/', '-'), script_path: script, raw_string: true }))
          .status,
      ).toBe(201);
    const echoed = await route('POST', 'u-admin-sync_echo', {
      headers: { 'content-type': 'text/plain' },
      body: 'plain text',
    });
    // A parameter of `main` the request did not give is null.
    expect([echoed.status, echoed.json()]).toEqual([
      200,
      { name: null, body: null, raw_string: 'plain text' },
    ]);
    expect(echoed.headers.get('x-job-id')).toMatch(/^[0-9a-f-]{36}$/);
    const failed = await route('POST', 'u-admin-sync_fails');
    expect(failed.status).toBe(500);
    expect(failed.json<{ error: { message: string } }>().error.message).toContain('route broke');
    const teapot = await route('POST', 'u-admin-sync_teapot');
    expect([
      teapot.status,
      teapot.headers.get('content-type'),
      teapot.headers.get('x-brew'),
      teapot.text,
    ]).toEqual([418, 'text/plain', 'tea', 'short and stout']);
  }, 60_000);

  it('a flow’s preprocessor receives the request: method, path, params, query, headers, body, raw body', async () => {
    const saved = await create({
      path: 'u/admin/preprocessed',
      route_path: 'hooks/:name',
      workspaced_route: true,
      script_path: 'u/admin/route_flow',
      is_flow: true,
      raw_string: true,
    });
    expect(saved.status).toBe(201);
    const raw = '{ "a":1,  "b": [true] }';
    const answer = await route('POST', 'main/hooks/deploy?q=1&token=secret', {
      headers: { 'content-type': 'application/json', 'x-custom': 'yes', cookie: 'session=hidden' },
      body: raw,
    });
    expect(answer.status).toBe(200);
    const seen = answer.json<Record<string, unknown> & { headers: Record<string, string> }>();
    expect(seen).toMatchObject({
      kind: 'http',
      route: 'hooks/:name',
      path: 'main/hooks/deploy',
      method: 'post',
      params: { name: 'deploy' },
      query: { q: '1' },
      body: { a: 1, b: [true] },
      raw_string: raw,
    });
    expect(seen.headers['x-custom']).toBe('yes');
    expect(seen.headers).not.toHaveProperty('cookie');
    // Workspaced: not served outside its workspace prefix.
    expect((await route('POST', 'hooks/deploy', json({}))).status).toBe(404);
  }, 60_000);

  it('windmill auth runs as the caller, who must be able to use the route', async () => {
    await create({ path: 'u/admin/private', route_path: 'private', authentication_method: 'windmill' });
    const before = (await jobsOf('u/admin/private')).length;
    for (const headers of [
      {},
      { authorization: 'Bearer fm_not_a_token_0000000000000000' },
      { authorization: `Bearer ${mesh.tokens.bob}` },
    ]) {
      const refused = await route('POST', 'private', { headers });
      expect([refused.status, refused.json<{ code: string }>().code]).toEqual([401, 'UNAUTHENTICATED']);
    }
    expect((await jobsOf('u/admin/private')).length).toBe(before);
    const ran = await route('POST', 'private', {
      headers: { authorization: `Bearer ${mesh.tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'me' }),
    });
    expect([ran.status, ran.json()]).toEqual([200, { name: 'me', body: null, raw_string: null }]);
  }, 60_000);

  it('api key, basic and signatures (GitHub, Stripe): wrong credentials are 401 and run nothing', async () => {
    const routes = {
      'u/admin/by_key': {
        route_path: 'by-key',
        authentication_method: 'api_key',
        authentication_resource_path: 'u/admin/api_key',
      },
      'u/admin/by_basic': {
        route_path: 'by-basic',
        authentication_method: 'basic_http',
        authentication_resource_path: 'u/admin/basic',
      },
      'u/admin/by_github': {
        route_path: 'by-github',
        authentication_method: 'signature',
        authentication_resource_path: 'u/admin/github',
      },
      'u/admin/by_stripe': {
        route_path: 'by-stripe',
        authentication_method: 'signature',
        authentication_resource_path: 'u/admin/stripe',
      },
    };
    for (const [path, settings] of Object.entries(routes))
      expect((await create({ path, ...settings })).status).toBe(201);
    const body = '{"name":  "signed"}';
    const hex = (secret: string, text: string) => createHmac('sha256', secret).update(text).digest('hex');
    const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;
    const t = Math.floor(Date.now() / 1000);
    const cases: Array<[string, Record<string, string>, Record<string, string>]> = [
      ['by-key', { 'x-api-key': 'k3y-secret' }, { 'x-api-key': 'k3y-wrong' }],
      ['by-basic', { authorization: basic('hook:pa:ss') }, { authorization: basic('hook:pass') }],
      [
        'by-github',
        { 'x-hub-signature-256': `sha256=${hex('gh-secret', body)}` },
        { 'x-hub-signature-256': `sha256=${hex('gh-secret', JSON.stringify(JSON.parse(body)))}` },
      ],
      [
        'by-stripe',
        { 'stripe-signature': `t=${t},v1=${hex('whsec_test', `${t}.${body}`)}` },
        { 'stripe-signature': `t=${t - 3600},v1=${hex('whsec_test', `${t - 3600}.${body}`)}` },
      ],
    ];
    for (const [path, good, bad] of cases) {
      const triggerPath = `u/admin/${path.replace('-', '_')}`;
      const refused = await route('POST', path, {
        headers: { 'content-type': 'application/json', ...bad },
        body,
      });
      expect([path, refused.status, refused.json<{ code: string }>().code]).toEqual([
        path,
        401,
        'UNAUTHENTICATED',
      ]);
      const none = await route('POST', path, { headers: { 'content-type': 'application/json' }, body });
      expect([path, none.status]).toEqual([path, 401]);
      expect((await jobsOf(triggerPath)).length).toBe(0);
      const ran = await route('POST', path, {
        headers: { 'content-type': 'application/json', ...good },
        body,
      });
      expect([path, ran.status, ran.json<{ name: string }>().name]).toEqual([path, 200, 'signed']);
      expect((await jobsOf(triggerPath)).length).toBe(1);
    }
    const challenged = await route('POST', 'by-basic', { headers: { authorization: basic('x:y') } });
    expect(challenged.headers.get('www-authenticate')).toBe('Basic realm="Restricted Area"');
  }, 60_000);

  it('the entry point sends /api/r to the orchestrator, whatever the route', () => {
    for (const path of ['/api/r/items/1', '/api/r/main/hooks/deploy'])
      expect(matchHttpRoute(path)?.service).toBe('flow-orchestrator');
  });

  it('orchestrator.http_trigger.* over NATS; a delete revokes the route at once', async () => {
    const triggers = createOrchestratorHttpTriggersClient(mesh.registry.client);
    const saved = await triggers.create({
      ...inMain(),
      trigger: {
        path: 'u/admin/nats_route',
        route_path: 'from-nats',
        script_path: 'u/admin/echo',
        is_flow: false,
        http_method: 'get',
        authentication_method: 'none',
        is_async: false,
      },
    });
    expect(saved).toMatchObject({ request_type: 'sync', route_path: 'from-nats' });
    expect((await route('GET', 'from-nats')).status).toBe(200);
    const renamed = await triggers.update({
      ...inMain(),
      path: 'u/admin/nats_route',
      trigger: { ...saved, path: 'u/admin/nats_route2', route_path: 'from-nats/:v', summary: 'moved' },
    });
    expect(renamed).toMatchObject({ path: 'u/admin/nats_route2', summary: 'moved' });
    expect((await route('GET', 'from-nats')).status).toBe(404);
    expect((await route('GET', 'from-nats/1')).status).toBe(200);
    expect(
      await triggers.routeExists({ ...inMain(), route_path: 'from-nats/:x', http_method: 'get' }),
    ).toEqual({
      exists: true,
    });
    await triggers.delete({ ...inMain(), path: 'u/admin/nats_route2' });
    expect((await route('GET', 'from-nats/1')).status).toBe(404);
    await expect(triggers.get({ ...inMain(), path: 'u/admin/nats_route2' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    } satisfies Partial<MeshError>);
  }, 60_000);

  it('a route runs as its last editor, whose token goes with the next edit; a removed owner runs nothing', async () => {
    const alice = { actor: { token: mesh.tokens.alice }, workspace: 'main' };
    await mesh.items.createScript({
      ...alice,
      path: 'u/alice/mine',
      summary: 'mine',
      language: 'bun',
      content: 'export async function main() { return 1; }',
    });
    const route_ = {
      path: 'u/alice/mine',
      route_path: 'mine',
      workspaced_route: true,
      script_path: 'u/alice/mine',
      request_type: 'async',
    };
    expect((await create(route_, 'alice')).status).toBe(201);
    const ownerOf = async () => {
      const started = await route('POST', 'main/mine');
      expect(started.status).toBe(201);
      return (await mesh.http('GET', `jobs_u/get/${started.text}`, 'admin')).json<{
        permissioned_as: string;
      }>().permissioned_as;
    };
    const routeTokens = async () =>
      (await mesh.identity.listApiTokens(alice)).tokens.filter((token) =>
        token.label?.includes('u/alice/mine'),
      );
    expect(await ownerOf()).toBe('u/alice');
    expect(await routeTokens()).toHaveLength(1);

    // Saved by the admin, it runs as the admin, and alice's token for it is revoked.
    expect(
      (
        await mesh.http('POST', 'http_triggers/update/u/alice/mine', 'admin', {
          ...route_,
          is_flow: false,
          http_method: 'post',
          authentication_method: 'none',
        })
      ).status,
    ).toBe(200);
    expect(await ownerOf()).toBe('u/admin');
    expect(await routeTokens()).toHaveLength(0);

    // Saved by alice again, then alice leaves the workspace: the route runs nothing.
    expect(
      (
        await mesh.http('POST', 'http_triggers/update/u/alice/mine', 'alice', {
          ...route_,
          is_flow: false,
          http_method: 'post',
          authentication_method: 'none',
        })
      ).status,
    ).toBe(200);
    await mesh.identity.removeUser({ ...inMain(), username: 'alice' });
    const before = (await jobsOf('u/alice/mine')).length;
    const refused = await route('POST', 'main/mine');
    expect([refused.status, refused.json<{ code: string }>().code]).toEqual([403, 'PERMISSION_DENIED']);
    expect((await jobsOf('u/alice/mine')).length).toBe(before);
  }, 60_000);

  it('another replica serves a route saved on this one', async () => {
    let replica: TestService | undefined;
    try {
      replica = await startTestService(flowOrchestratorDefinition, {
        env: {
          FLOWMESH_SUBJECT_PREFIX: mesh.registry.config.subjectPrefix,
          DATABASE_URL: mesh.orchestrator.config.database.url,
          FLOWMESH_WAIT_RESULT_TIMEOUT_MS: '20000',
        },
      });
      const base = replica.url;
      expect((await route('POST', 'replicated', { base })).status).toBe(404);
      await create({
        path: `u/admin/r_${randomUUID().slice(0, 8)}`,
        route_path: 'replicated',
        request_type: 'async',
      });
      await waitFor(async () => (await route('POST', 'replicated', { base, ...json({}) })).status === 201, {
        timeoutMs: 60_000,
        description: 'the other replica to serve the new route',
      });
    } finally {
      await replica?.stop();
    }
  }, 90_000);
});
