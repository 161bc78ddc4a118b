import { spawnSync } from 'node:child_process';
import { createOrchestratorJobsClient } from '@flowmesh/contracts';
import { waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRunApiMesh, type RunApiMesh } from './support/run-api-mesh.js';

/** A flow that returns its input: what its preprocessor made of the webhook, or the body. */
const echoInput = { id: 'out', value: { type: 'identity' } };
const preprocessorModule = (body: string) => ({
  id: 'preprocessor',
  value: {
    type: 'rawscript',
    language: 'bun',
    content: `export async function preprocessor(event) { ${body} }`,
    input_transforms: {},
  },
});
const hasPython = spawnSync('python3', ['--version']).status === 0;

interface Answer {
  readonly status: number;
  readonly text: string;
  json<T = unknown>(): T;
}

// Running a flow or script by path is its webhook (Windmill's): its preprocessor gets the event,
// `skip_preprocessor` skips it, a runnable without one gets the body; run tokens (jobs:run
// scopes) start their paths and nothing else. On the real registry, orchestrator and worker.
describe('webhooks', () => {
  let mesh: RunApiMesh;
  let runToken: string;
  const inMain = () => ({ actor: { token: mesh.tokens.admin }, workspace: 'main' });
  const asAlice = () => ({ actor: { token: mesh.tokens.alice }, workspace: 'main' });

  /** `fetch` to the orchestrator with any token, body and headers. */
  const call = async (
    method: string,
    route: string,
    options: { token?: string; body?: string; type?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.type) headers['content-type'] = options.type;
    const response = await fetch(`${mesh.orchestrator.url}/api/w/main/${route}`, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: options.body }),
    });
    const text = await response.text();
    return { status: response.status, text, json: <T>() => JSON.parse(text) as T };
  };
  const post = (
    route: string,
    body: unknown,
    token = mesh.tokens.admin,
    headers: Record<string, string> = {},
  ) => call('POST', route, { token, body: JSON.stringify(body), type: 'application/json', headers });
  const job = async (id: string) =>
    (await call('GET', `jobs_u/get/${id}`, { token: mesh.tokens.admin })).json<Record<string, unknown>>();
  const completed = (id: string) =>
    waitFor(
      async () => {
        const body = await job(id);
        return body.type === 'CompletedJob' ? body : undefined;
      },
      { timeoutMs: 60_000, description: `job ${id} to complete` },
    );

  beforeAll(async () => {
    mesh = await startRunApiMesh();
    await mesh.items.createFlow({
      ...inMain(),
      path: 'u/admin/pre_flow',
      summary: 'preprocessed',
      value: {
        preprocessor_module: preprocessorModule('return { seen: event };'),
        modules: [echoInput],
      },
    });
    await mesh.items.createFlow({
      ...inMain(),
      path: 'u/admin/pre_value',
      summary: 'a preprocessor returning a string',
      value: {
        preprocessor_module: preprocessorModule('return `hi ${event.body.name}`;'),
        modules: [echoInput],
      },
    });
    await mesh.items.createFlow({
      ...inMain(),
      path: 'u/admin/plain_flow',
      summary: 'no preprocessor',
      value: { modules: [echoInput] },
    });
    await mesh.items.createScript({
      ...inMain(),
      path: 'u/admin/pre_ts',
      summary: 'preprocessed TypeScript',
      language: 'bun',
      content: [
        'export async function preprocessor(event: { kind: string; body: any; query: Record<string, string>; headers: Record<string, string> }) {',
        '  return { name: event.body.name, via: event.kind, q: event.query.q ?? null, h: event.headers["x-custom"] ?? null, auth: event.headers.authorization ?? null };',
        '}',
        'export async function main(name: string, via: string, q: string, h: string, auth: string | null) {',
        '  return { name, via, q, h, auth };',
        '}',
      ].join('\n'),
    });
    await mesh.items.createScript({
      ...inMain(),
      path: 'u/admin/double',
      summary: 'no preprocessor',
      language: 'bun',
      content: 'export async function main(n: number) { return n * 2; }',
    });
    if (hasPython)
      await mesh.items.createScript({
        ...inMain(),
        path: 'u/admin/pre_py',
        summary: 'preprocessed Python',
        language: 'python3',
        content: [
          'def preprocessor(event):',
          '    return {"name": event["body"]["name"], "via": event["kind"], "h": event["headers"].get("x-custom")}',
          '',
          'def main(name, via, h):',
          '    return {"name": name, "via": via, "h": h}',
        ].join('\n'),
      });

    // Alice's hook reads her own secret: a run started with her run token acts with her rights.
    await mesh.items.createVariable({
      ...asAlice(),
      path: 'u/alice/secret',
      value: 's3cret',
      is_secret: true,
    });
    const readSecret = {
      id: 'secret',
      value: {
        type: 'rawscript',
        language: 'bun',
        content: 'export async function main(secret: string, who: string) { return { secret, who }; }',
        input_transforms: {
          secret: { type: 'static', value: '$var:u/alice/secret' },
          who: { type: 'javascript', expr: 'flow_input.who' },
        },
      },
    };
    await mesh.items.createFlow({
      ...asAlice(),
      path: 'u/alice/hook',
      summary: 'hook',
      value: { modules: [readSecret] },
    });
    await mesh.items.createFlow({
      ...asAlice(),
      path: 'u/alice/other',
      summary: 'other',
      value: { modules: [echoInput] },
    });
    await mesh.items.createScript({
      ...asAlice(),
      path: 'u/alice/hook_script',
      summary: 'hook script',
      language: 'bun',
      content: 'export async function main(x: number) { return x + 1; }',
    });
    runToken = (
      await mesh.identity.createApiToken({
        ...asAlice(),
        label: 'webhook',
        scopes: ['jobs:run:u/alice/hook*'],
      })
    ).token;
  }, 120_000);

  afterAll(async () => {
    await mesh?.stop();
  });

  it("gives a flow's preprocessor Windmill's event, its result the input, never the credentials", async () => {
    const headers = { 'x-custom': 'yes', cookie: 'session=abc' };
    const started = await post(
      'jobs/run/f/u/admin/pre_flow?q=1&tag=flow',
      { name: 'ada' },
      mesh.tokens.admin,
      headers,
    );
    expect(started.status).toBe(201);
    const done = await completed(started.text);
    const seen = (done.result as { seen: Record<string, unknown> }).seen;
    expect(seen).toMatchObject({
      kind: 'webhook',
      body: { name: 'ada' },
      raw_string: null,
      query: { q: '1' },
    });
    expect(seen.headers).toMatchObject({ 'x-custom': 'yes', 'content-type': 'application/json' });
    expect(seen.headers).not.toHaveProperty('authorization');
    expect(seen.headers).not.toHaveProperty('cookie');
    // The run options are not the webhook's query.
    expect(seen.query).not.toHaveProperty('tag');
    // The job shows what the flow started with, and that a webhook started it.
    expect(done).toMatchObject({
      success: true,
      args: { seen: { kind: 'webhook' } },
      trigger_kind: 'webhook',
      trigger: 'u/admin/pre_flow',
    });
    expect(done.flow_status).toMatchObject({ preprocessor_module: { type: 'Success' } });

    // A result that is not an object is the input `{ value }`; synchronous and raw.
    const waited = await post('jobs/run_wait_result/f/u/admin/pre_value?raw=true', { name: 'bob' });
    expect([waited.status, waited.json()]).toEqual([200, { value: 'hi bob' }]);

    // `raw=true`: the body's bytes as sent, for a preprocessor that checks a signature over them.
    const sent = '{ "name" :  "ada" }';
    const raw = await call('POST', 'jobs/run_wait_result/f/u/admin/pre_flow?raw=true', {
      token: mesh.tokens.admin,
      type: 'application/json',
      body: sent,
    });
    expect(raw.json<{ seen: unknown }>().seen).toMatchObject({ body: { name: 'ada' }, raw_string: sent });

    // A text body reaches the preprocessor as raw_string.
    const text = await call('POST', 'jobs/run_wait_result/f/u/admin/pre_flow', {
      token: mesh.tokens.admin,
      type: 'text/plain',
      body: 'plain words',
    });
    expect(text.status).toBe(200);
    expect(text.json<{ seen: unknown }>().seen).toMatchObject({ body: {}, raw_string: 'plain words' });
    const binary = await call('POST', 'jobs/run/f/u/admin/pre_flow', {
      token: mesh.tokens.admin,
      type: 'application/octet-stream',
      body: 'x',
    });
    expect([binary.status, binary.json()]).toEqual([415, expect.objectContaining({ code: 'UNSUPPORTED' })]);
  });

  it('skips the preprocessor with skip_preprocessor=true; a flow without one gets the body', async () => {
    const skipped = await post('jobs/run/f/u/admin/pre_flow?skip_preprocessor=true', { name: 'ada' });
    expect(skipped.status).toBe(201);
    const done = await completed(skipped.text);
    expect(done).toMatchObject({
      success: true,
      result: { name: 'ada' },
      args: { name: 'ada' },
      trigger_kind: 'webhook',
    });
    expect(done.flow_status).toMatchObject({ preprocessor_module: { type: 'WaitingForPriorSteps' } });

    const plain = await post('jobs/run_wait_result/f/u/admin/plain_flow?include_query=q&q=7', {
      name: 'ada',
    });
    expect([plain.status, plain.json()]).toEqual([200, { name: 'ada', q: '7' }]);
    // A body that is not an object is `{ body }`, as Windmill's webhook has it.
    const list = await post('jobs/run_wait_result/f/u/admin/plain_flow', [1, 2]);
    expect([list.status, list.json()]).toEqual([200, { body: [1, 2] }]);
    // Previews are not webhooks: the preprocessor does not run.
    const preview = await post('jobs/run_wait_result/preview_flow', {
      value: { preprocessor_module: preprocessorModule('return { seen: event };'), modules: [echoInput] },
      args: { name: 'ada' },
    });
    expect([preview.status, preview.json()]).toEqual([200, { name: 'ada' }]);
  });

  it("runs a TypeScript script's preprocessor then main in one job, args rewritten", async () => {
    const started = await post('jobs/run/p/u/admin/pre_ts?q=2', { name: 'ada' }, mesh.tokens.admin, {
      'x-custom': 'ts',
    });
    expect(started.status).toBe(201);
    const done = await completed(started.text);
    const expected = { name: 'ada', via: 'webhook', q: '2', h: 'ts', auth: null };
    expect(done).toMatchObject({
      success: true,
      result: expected,
      args: expected,
      trigger_kind: 'webhook',
      trigger: 'u/admin/pre_ts',
    });
    const skipped = await post('jobs/run_wait_result/p/u/admin/pre_ts?skip_preprocessor=true', {
      name: 'direct',
      via: 'body',
      q: '0',
      h: '-',
    });
    expect([skipped.status, skipped.json()]).toEqual([
      200,
      { name: 'direct', via: 'body', q: '0', h: '-', auth: null },
    ]);
    // Over NATS, any trigger hands its own event the same way (orchestrator.job.run_script).
    const jobs = createOrchestratorJobsClient(mesh.registry.client);
    const { job_id } = await jobs.runScript({
      ...inMain(),
      path: 'u/admin/pre_ts',
      args: { name: 'unused' },
      apply_preprocessor: true,
      trigger: { kind: 'nats', path: 'u/admin/on_orders' },
      trigger_event: { kind: 'nats', body: { name: 'msg' }, query: {}, headers: {} },
    });
    expect(await completed(job_id)).toMatchObject({
      result: { name: 'msg', via: 'nats', q: null, h: null, auth: null },
      trigger_kind: 'nats',
      trigger: 'u/admin/on_orders',
    });
    // Without a preprocessor the body is the arguments, as before; GET with a base64 payload too.
    const plain = await post('jobs/run_wait_result/p/u/admin/double', { n: 21 });
    expect([plain.status, plain.json()]).toEqual([200, 42]);
    const payload = Buffer.from(JSON.stringify({ n: 5 })).toString('base64url');
    const got = await call('GET', `jobs/run_wait_result/p/u/admin/double?payload=${payload}`, {
      token: mesh.tokens.admin,
    });
    expect([got.status, got.json()]).toEqual([200, 10]);
    const bad = await call('GET', 'jobs/run_wait_result/p/u/admin/double?payload=bm90IGpzb24', {
      token: mesh.tokens.admin,
    });
    expect([bad.status, bad.json()]).toEqual([
      400,
      expect.objectContaining({
        details: { issues: [{ path: 'payload', message: 'must be JSON encoded in base64' }] },
      }),
    ]);
  });

  it.skipIf(!hasPython)("runs a Python script's preprocessor then main in one job", async () => {
    const started = await post('jobs/run/p/u/admin/pre_py', { name: 'py' }, mesh.tokens.admin, {
      'x-custom': 'snake',
    });
    expect(started.status).toBe(201);
    const done = await completed(started.text);
    const expected = { name: 'py', via: 'webhook', h: 'snake' };
    expect(done).toMatchObject({ success: true, result: expected, args: expected, trigger_kind: 'webhook' });
    const skipped = await post('jobs/run_wait_result/p/u/admin/pre_py?skip_preprocessor=true', {
      name: 'n',
      via: 'v',
      h: null,
    });
    expect([skipped.status, skipped.json()]).toEqual([200, { name: 'n', via: 'v', h: null }]);
  });

  it('lets a run token start its paths, async and sync, acting with its user’s rights', async () => {
    const started = await post('jobs/run/f/u/alice/hook', { who: 'async' }, runToken);
    expect(started.status).toBe(201);
    // Alice's secret was read: the run acts as alice, not with the token's narrow scopes.
    expect(await completed(started.text)).toMatchObject({
      success: true,
      result: { secret: 's3cret', who: 'async' },
      created_by: 'alice',
      trigger_kind: 'webhook',
    });
    const waited = await post('jobs/run_wait_result/f/u/alice/hook', { who: 'sync' }, runToken);
    expect([waited.status, waited.json()]).toEqual([200, { secret: 's3cret', who: 'sync' }]);
    const script = await post('jobs/run_wait_result/p/u/alice/hook_script', { x: 1 }, runToken);
    expect([script.status, script.json()]).toEqual([200, 2]);
    // A sender that cannot set headers puts the token in the URL; it never reaches the run.
    const inUrl = await call('POST', `jobs/run_wait_result/f/u/alice/hook?token=${runToken}`, {
      body: JSON.stringify({ who: 'url' }),
      type: 'application/json',
    });
    expect([inUrl.status, inUrl.json()]).toEqual([200, { secret: 's3cret', who: 'url' }]);

    // Windmill's webhook-specific scopes name the kind: jobs:run:scripts runs scripts only.
    const scriptsOnly = (
      await mesh.identity.createApiToken({
        ...asAlice(),
        label: 'scripts',
        scopes: ['jobs:run:scripts:u/alice/hook*'],
      })
    ).token;
    const asScript = await post('jobs/run_wait_result/p/u/alice/hook_script', { x: 2 }, scriptsOnly);
    expect([asScript.status, asScript.json()]).toEqual([200, 3]);
    expect((await post('jobs/run/f/u/alice/hook', { who: 'flow' }, scriptsOnly)).status).toBe(403);
  });

  it('refuses a run token everything else', async () => {
    const adminJob = (await post('jobs/run/f/u/admin/plain_flow', { a: 1 })).text;
    const own = (await post('jobs/run/f/u/alice/hook', { who: 'x' }, runToken)).text;
    await completed(own);
    const refused: Array<[string, Answer]> = [
      ['another path', await post('jobs/run/f/u/alice/other', {}, runToken)],
      ['another path, sync', await post('jobs/run_wait_result/f/u/alice/other', {}, runToken)],
      ['a script elsewhere', await post('jobs/run/p/u/admin/double', { n: 1 }, runToken)],
      [
        'a flow preview',
        await post('jobs/run/preview_flow', { value: { modules: [echoInput] }, args: {} }, runToken),
      ],
      [
        'a script preview',
        await post(
          'jobs/run/preview',
          { content: 'export function main() {}', language: 'bun', args: {} },
          runToken,
        ),
      ],
    ];
    for (const [what, answer] of refused) expect([what, answer.status]).toEqual([what, 403]);
    const overNats = createOrchestratorJobsClient(mesh.registry.client).runFlow({
      actor: { token: runToken },
      workspace: 'main',
      path: 'u/alice/other',
      args: {},
    });
    await expect(overNats).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    // It reads no job, its own runs' included (jobs:read is not jobs:run), and lists none.
    for (const id of [adminJob, own]) {
      expect((await call('GET', `jobs_u/get/${id}`, { token: runToken })).status).toBe(404);
      expect((await call('GET', `jobs_u/completed/get_result_maybe/${id}`, { token: runToken })).status).toBe(
        404,
      );
    }
    const listed = await call('GET', 'jobs/list', { token: runToken });
    expect([listed.status, listed.json()]).toEqual([200, []]);
    expect(
      (
        await call('POST', `jobs_u/queue/cancel/${own}`, {
          token: runToken,
          body: '{}',
          type: 'application/json',
        })
      ).status,
    ).toBe(404);
    // The registry refuses it too: no resource, variable or flow to read, and lists show none.
    const registry = (route: string) =>
      fetch(`${mesh.registry.url}/api/w/main/${route}`, { headers: { authorization: `Bearer ${runToken}` } });
    for (const route of [
      'variables/get/u/alice/secret',
      'flows/get/u/alice/hook',
      'scripts/get/p/u/alice/hook_script',
    ]) {
      // Refused as the registry refuses an item a token may not read (404, as if absent).
      expect([route, (await registry(route)).status]).toEqual([route, 404]);
    }
    for (const route of ['resources/list', 'variables/list', 'flows/list']) {
      const answer = await registry(route);
      expect([route, answer.status, await answer.json()]).toEqual([route, 200, []]);
    }
  });
});
