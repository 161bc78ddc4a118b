import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createOrchestratorJobsClient, MeshError } from '@flowmesh/contracts';
import { REPO_ROOT, runFlowmesh, waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptStep, startRunApiMesh, type Member, type RunApiMesh } from './support/run-api-mesh.js';

const hello = {
  modules: [
    scriptStep('greet', 'console.log(`greeting ${name}`); return `Hello, ${name}!`;', {
      name: 'flow_input.name',
    }),
    { id: 'out', value: { type: 'identity' } },
  ],
};
const failing = { modules: [scriptStep('boom', "throw new Error('no luck');")] };

// The run API over HTTP and NATS against the real registry (tokens, groups, folders) and the
// real engine: Windmill's jobs routes, who may read what, and the CLI as a user runs it.
describe('flow-orchestrator run API', () => {
  let mesh: RunApiMesh;

  beforeAll(async () => {
    mesh = await startRunApiMesh();
  }, 120_000);

  afterAll(async () => {
    await mesh?.stop();
  });

  const run = async (value: unknown, args: Record<string, unknown>, as: Member = 'admin') => {
    const started = await mesh.http('POST', 'jobs/run/preview_flow', as, { value, args });
    expect(started.status).toBe(201);
    expect(started.contentType).toMatch(/^text\/plain/);
    return started.text;
  };
  const completed = (id: string, as: Member = 'admin') =>
    waitFor(
      async () => {
        const answer = await mesh.http('GET', `jobs_u/completed/get_result_maybe/${id}`, as);
        const body = answer.json<{ completed: boolean; success?: boolean; result: unknown }>();
        return body.completed ? body : undefined;
      },
      { timeoutMs: 60_000, description: `job ${id} to complete` },
    );

  it('refuses every route without a bearer token, and with a bad one (401)', async () => {
    const id = randomUUID();
    const routes: Array<[string, string]> = [
      ['POST', 'jobs/run/preview_flow'],
      ['POST', 'jobs/run_wait_result/preview_flow'],
      ['POST', 'jobs/run/f/f/team/flow'],
      ['POST', 'jobs/run_wait_result/f/f/team/flow'],
      ['POST', 'jobs/run/p/f/team/script'],
      ['POST', 'jobs/run_wait_result/p/f/team/script'],
      ['POST', 'jobs/run/preview'],
      ['GET', `jobs_u/get/${id}`],
      ['GET', `jobs_u/completed/get_result/${id}`],
      ['GET', `jobs_u/completed/get_result_maybe/${id}`],
      ['GET', `jobs_u/getupdate/${id}`],
      ['GET', `jobs_u/get_logs/${id}`],
      ['GET', `jobs/result_by_id/${id}/a`],
      ['POST', `jobs_u/queue/cancel/${id}`],
      ['GET', 'jobs/list'],
      ['GET', `jobs/resume_urls/${id}/1`],
      ['POST', `jobs/flow/resume/${id}`],
    ];
    for (const [method, route] of routes) {
      const answer = await mesh.http(method, route, undefined, method === 'POST' ? {} : undefined);
      expect([route, answer.status, answer.json<{ code: string }>().code]).toEqual([
        route,
        401,
        'UNAUTHENTICATED',
      ]);
    }
    const bad = await fetch(`${mesh.orchestrator.url}/api/w/main/jobs/list`, {
      headers: { authorization: 'Bearer fm_not_a_token_at_all_000000000' },
    });
    expect(bad.status).toBe(401);
  });

  it('runs a preview flow: 201 and the job id, then the job with its flow_status, its result and its logs', async () => {
    const id = await run(hello, { name: 'mesh' });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await completed(id)).toMatchObject({ completed: true, success: true, result: 'Hello, mesh!' });

    const job = (await mesh.http('GET', `jobs_u/get/${id}`, 'admin')).json<Record<string, unknown>>();
    expect(job).toMatchObject({
      type: 'CompletedJob',
      id,
      success: true,
      result: 'Hello, mesh!',
      job_kind: 'flowpreview',
      created_by: 'admin',
      flow_status: {
        modules: [
          { id: 'greet', type: 'Success' },
          { id: 'out', type: 'Success' },
        ],
      },
    });
    const result = await mesh.http('GET', `jobs_u/completed/get_result/${id}`, 'admin');
    expect([result.status, result.contentType, result.json()]).toEqual([
      200,
      expect.stringMatching(/json/),
      'Hello, mesh!',
    ]);
    const update = (await mesh.http('GET', `jobs_u/getupdate/${id}?log_offset=0`, 'admin')).json<{
      flow_status: { modules: unknown[] };
    }>();
    expect(update).toMatchObject({ running: false, completed: true });
    expect(update.flow_status.modules).toHaveLength(2);
    const logs = await mesh.http('GET', `jobs_u/get_logs/${id}`, 'admin');
    expect([logs.status, logs.contentType]).toEqual([200, expect.stringMatching(/^text\/plain/)]);
    // The step's own logs, and getupdate's new logs since an offset.
    const step = (job.flow_status as { modules: Array<{ job: string }> }).modules[0]?.job ?? '';
    expect((await mesh.http('GET', `jobs_u/get_logs/${step}`, 'admin')).text).toContain('greeting mesh');
    const first = (await mesh.http('GET', `jobs_u/getupdate/${step}?log_offset=0`, 'admin')).json<{
      new_logs: string;
      log_offset: number;
    }>();
    expect(first.new_logs).toContain('greeting mesh');
    const next = (
      await mesh.http('GET', `jobs_u/getupdate/${step}?log_offset=${first.log_offset}`, 'admin')
    ).json<{
      new_logs: string;
      log_offset: number;
    }>();
    expect(next).toMatchObject({ new_logs: '', log_offset: first.log_offset });
    const node = await mesh.http('GET', `jobs/result_by_id/${id}/greet`, 'admin');
    expect([node.status, node.json()]).toEqual([200, 'Hello, mesh!']);
  });

  it('waits for the result: 200 and the result, or 422 and the error the flow failed with', async () => {
    const ok = await mesh.http('POST', 'jobs/run_wait_result/preview_flow', 'admin', {
      value: hello,
      args: { name: 'you' },
    });
    expect([ok.status, ok.json()]).toEqual([200, 'Hello, you!']);
    const failed = await mesh.http('POST', 'jobs/run_wait_result/preview_flow', 'admin', {
      value: failing,
      args: {},
    });
    expect(failed.status).toBe(422);
    expect(failed.json()).toMatchObject({ error: { name: 'Error', message: 'no luck', step_id: 'boom' } });
  });

  it('takes arguments of megabytes (FLOWMESH_HTTP_BODY_LIMIT_BYTES, 16 MiB by default)', async () => {
    const text = 'x'.repeat(3 * 1024 * 1024);
    const counted = await mesh.http('POST', 'jobs/run_wait_result/preview_flow', 'admin', {
      value: {
        modules: [
          {
            id: 'count',
            value: {
              type: 'rawscript',
              language: 'bun',
              content: 'export function main(text: string) { return text.length; }',
              input_transforms: { text: { type: 'javascript', expr: 'flow_input.text' } },
            },
          },
        ],
      },
      args: { text },
    });
    expect([counted.status, counted.json()]).toEqual([200, text.length]);
  });

  it('runs saved flows and scripts by path, with the body as the arguments, honouring early_return', async () => {
    const inMain = { actor: { token: mesh.tokens.admin }, workspace: 'main' };
    await mesh.items.createFlow({ ...inMain, path: 'u/admin/hello', summary: 'hello', value: hello });
    await mesh.items.createFlow({
      ...inMain,
      path: 'u/admin/early',
      summary: 'early',
      value: {
        early_return: 'first',
        modules: [
          scriptStep('first', "return 'early';"),
          // Suspended once it ran, the flow cannot end until resumed: only early_return can answer.
          { ...scriptStep('held', "return 'late';"), suspend: { required_events: 1 } },
        ],
      },
    });
    await mesh.items.createScript({
      ...inMain,
      path: 'u/admin/double',
      summary: 'double',
      language: 'bun',
      content: 'export async function main(n: number) { return n * 2; }',
    });

    const started = await mesh.http('POST', 'jobs/run/f/u/admin/hello', 'admin', { name: 'path' });
    expect(started.status).toBe(201);
    expect((await completed(started.text)).result).toBe('Hello, path!');
    const waited = await mesh.http('POST', 'jobs/run_wait_result/f/u/admin/hello', 'admin', { name: 'sync' });
    expect([waited.status, waited.json()]).toEqual([200, 'Hello, sync!']);

    // Answered while the flow still waits for its resume (a broken early_return would wait for
    // the end, then answer TIMEOUT): the caller got the early result before the flow completed.
    const early = await mesh.http('POST', 'jobs/run_wait_result/f/u/admin/early', 'admin', {});
    expect([early.status, early.json()]).toEqual([200, 'early']);
    const listed = await mesh.http('GET', 'jobs/list?script_path_exact=u/admin/early', 'admin');
    const [held] = listed.json<Array<{ id: string }>>();
    expect((await mesh.http('GET', `jobs_u/get/${held.id}`, 'admin')).json()).toMatchObject({
      type: 'QueuedJob',
    });
    expect((await mesh.http('POST', `jobs_u/queue/cancel/${held.id}`, 'admin', {})).status).toBe(200);
    await completed(held.id);

    const script = await mesh.http('POST', 'jobs/run/p/u/admin/double', 'admin', { n: 4 });
    expect(script.status).toBe(201);
    expect((await completed(script.text)).result).toBe(8);
    const scriptWaited = await mesh.http('POST', 'jobs/run_wait_result/p/u/admin/double', 'admin', { n: 21 });
    expect([scriptWaited.status, scriptWaited.json()]).toEqual([200, 42]);
    const preview = await mesh.http('POST', 'jobs/run/preview', 'admin', {
      content: 'export async function main(a: string) { return a.toUpperCase(); }',
      language: 'bun',
      args: { a: 'shout' },
    });
    expect(preview.status).toBe(201);
    expect((await completed(preview.text)).result).toBe('SHOUT');
    const previewWaited = await mesh.http('POST', 'jobs/run_wait_result/preview', 'admin', {
      content: 'export async function main(a: number) { return a + 1; }',
      language: 'bun',
      args: { a: 1 },
    });
    expect([previewWaited.status, previewWaited.json()]).toEqual([200, 2]);
  });

  it('answers 404 for a job the caller may not read, exactly as for one that does not exist', async () => {
    const id = await run(hello, { name: 'private' }, 'alice');
    await completed(id, 'alice');
    const unknown = await mesh.http('GET', `jobs_u/get/${randomUUID()}`, 'bob');
    for (const route of [
      `jobs_u/get/${id}`,
      `jobs_u/completed/get_result_maybe/${id}`,
      `jobs_u/get_logs/${id}`,
      `jobs/result_by_id/${id}/greet`,
    ]) {
      const answer = await mesh.http('GET', route, 'bob');
      expect([route, answer.status, answer.json<{ code: string }>().code]).toEqual([route, 404, 'NOT_FOUND']);
    }
    expect(unknown.status).toBe(404);
    const cancel = await mesh.http('POST', `jobs_u/queue/cancel/${id}`, 'bob', {});
    expect(cancel.status).toBe(404);
    // The admin of the workspace sees it; another workspace does not have it.
    expect((await mesh.http('GET', `jobs_u/get/${id}`, 'admin')).status).toBe(200);
    const elsewhere = await fetch(`${mesh.orchestrator.url}/api/w/elsewhere/jobs_u/get/${id}`, {
      headers: { authorization: `Bearer ${mesh.tokens.admin}` },
    });
    expect(elsewhere.status).toBe(404);
    // The same over NATS.
    const jobs = createOrchestratorJobsClient(mesh.registry.client);
    const error = await jobs
      .get({ actor: { token: mesh.tokens.bob }, workspace: 'main', id })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MeshError);
    expect((error as MeshError).code).toBe('NOT_FOUND');
    expect((await jobs.get({ actor: { token: mesh.tokens.alice }, workspace: 'main', id })).id).toBe(id);
  });

  it('lists jobs with filters, each caller only those they may read', async () => {
    const mine = await run(hello, { name: 'listed' }, 'bob');
    await completed(mine, 'bob');
    const failed = await run(failing, {}, 'bob');
    await completed(failed, 'bob');
    type Listed = Array<{ id: string; created_by: string; success?: boolean }>;
    const bobs = (await mesh.http('GET', 'jobs/list', 'bob')).json<Listed>();
    expect(bobs.map((job) => job.created_by)).toEqual(bobs.map(() => 'bob'));
    expect(bobs.map((job) => job.id)).toEqual(expect.arrayContaining([mine, failed]));
    const failures = (
      await mesh.http('GET', 'jobs/list?success=false&created_by=bob', 'admin')
    ).json<Listed>();
    expect(failures.map((job) => job.id)).toEqual([failed]);
    const byPath = (
      await mesh.http('GET', 'jobs/list?script_path_exact=u/admin/hello', 'admin')
    ).json<Listed>();
    expect(byPath.length).toBeGreaterThan(0);
    expect(
      (await mesh.http('GET', 'jobs/list?script_path_exact=u/admin/hello', 'bob')).json<Listed>(),
    ).toEqual([]);
    expect((await mesh.http('GET', 'jobs/list?success=maybe', 'admin')).status).toBe(400);
  });

  it('cancels a job for its creator: the flow ends cancelled; a second cancel is a conflict', async () => {
    const parked = {
      modules: [
        { ...scriptStep('wait', "return 'parked';"), suspend: { required_events: 1, timeout: 600 } },
        scriptStep('after', "return 'never';"),
      ],
    };
    const id = await run(parked, {}, 'alice');
    await waitFor(
      async () =>
        (await mesh.http('GET', `jobs_u/get/${id}`, 'alice')).json<{ status: string }>().status ===
        'suspended',
      {
        timeoutMs: 60_000,
        description: 'the flow to suspend',
      },
    );
    const cancel = await mesh.http('POST', `jobs_u/queue/cancel/${id}`, 'alice', {
      reason: 'changed my mind',
    });
    expect([cancel.status, cancel.text]).toEqual([200, `job ${id} canceled`]);
    const outcome = await completed(id, 'alice');
    expect(outcome.success).toBe(false);
    expect((await mesh.http('GET', `jobs_u/get/${id}`, 'alice')).json()).toMatchObject({
      canceled: true,
      canceled_reason: 'changed my mind',
    });
    expect((await mesh.http('POST', `jobs_u/queue/cancel/${id}`, 'alice', {})).status).toBe(409);
  });

  it('flowmesh run runs an example flow file, shows each step, prints the result; a failing flow exits 1', async () => {
    buildCli();
    const env = { FLOWMESH_URL: mesh.orchestrator.url, FLOWMESH_TOKEN: mesh.tokens.admin };
    const ok = await runFlowmesh(['run', 'examples/flows/hello.yaml', '--args', '{"name": "cli"}'], { env });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toBe('Hello, cli!');
    expect(ok.stderr).toMatch(/job [0-9a-f-]{36} started\n✓ greet\n✓ result\n/);

    // A run's memory id (what its AI agent steps remember by) is kept on its flow status.
    const remembered = await runFlowmesh(
      ['run', 'examples/flows/hello.yaml', '--args', '{"name": "cli"}', '--memory-id', 'conv 7'],
      { env },
    );
    const rememberedId = /job ([0-9a-f-]{36}) started/.exec(remembered.stderr)![1];
    expect((await mesh.http('GET', `jobs_u/get/${rememberedId}`, 'admin')).json()).toMatchObject({
      flow_status: { memory_id: 'conv 7' },
    });

    const loop = await runFlowmesh(
      ['run', 'examples/flows/loop-with-branch.yaml', '--args', '{"numbers": [3, 8]}'],
      { env },
    );
    expect(loop.code).toBe(0);
    expect(JSON.parse(loop.stdout)).toEqual({
      even: 1,
      odd: 1,
      steps: [
        { n: 3, kind: 'odd', next: 10 },
        { n: 8, kind: 'even', next: 4 },
      ],
    });

    const inMain = { actor: { token: mesh.tokens.admin }, workspace: 'main' };
    await mesh.items.createFlow({ ...inMain, path: 'u/admin/fails', summary: 'fails', value: failing });
    const bad = await runFlowmesh(['run', 'u/admin/fails'], { env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('✗ boom failed');
    expect(bad.stderr).toContain('"message": "no luck"');

    const noToken = await runFlowmesh(['jobs', 'get', randomUUID()], {
      env: { ...env, FLOWMESH_TOKEN: 'fm_wrong_token_000000000000000' },
    });
    expect([noToken.code, noToken.stderr]).toEqual([1, expect.stringContaining('UNAUTHENTICATED')]);
  }, 180_000);

  it('flowmesh jobs resume answers the approval example; jobs get, logs and cancel act on a job', async () => {
    buildCli();
    const env = { FLOWMESH_URL: mesh.orchestrator.url, FLOWMESH_TOKEN: mesh.tokens.admin };
    const running = runFlowmesh(['run', 'examples/flows/approval.yaml', '--args', '{"amount": 120}'], {
      env,
    });
    type Listed = Array<{ id: string; status: string }>;
    const suspended = await waitFor(
      async () =>
        (await mesh.http('GET', 'jobs/list?suspended=true&created_by=admin', 'admin')).json<Listed>()[0],
      { timeoutMs: 60_000, description: 'the approval example to suspend' },
    );
    const refused = await runFlowmesh(['jobs', 'resume', suspended.id, '--payload', '{}'], { env });
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining('VALIDATION_FAILED')]);
    const resumed = await runFlowmesh(['jobs', 'resume', suspended.id, '--payload', '{"comment": "fine"}'], {
      env,
    });
    expect([resumed.code, resumed.stdout]).toEqual([0, '{"outcome":"resumed"}\n']);
    const ran = await running;
    expect(ran.code).toBe(0);
    expect(ran.stderr).toContain(`… approval needed before decision: flowmesh jobs resume ${suspended.id}`);
    expect(JSON.parse(ran.stdout)).toEqual({
      approved: true,
      amount: 120,
      reason: 'team lunch',
      comment: 'fine',
      approvers: ['admin'],
    });

    const got = await runFlowmesh(['jobs', 'get', suspended.id], { env });
    expect(JSON.parse(got.stdout)).toMatchObject({
      id: suspended.id,
      success: true,
      job_kind: 'flowpreview',
    });
    const stepJob = (JSON.parse(got.stdout) as { flow_status: { modules: Array<{ job: string }> } })
      .flow_status.modules[0]?.job;
    const logs = await runFlowmesh(['jobs', 'logs', stepJob ?? ''], { env });
    expect([logs.code, logs.stdout]).toEqual([
      0,
      expect.stringContaining('asking approval for 120 (team lunch)'),
    ]);

    const parked = {
      modules: [{ ...scriptStep('wait', "return 'parked';"), suspend: { required_events: 1 } }],
    };
    const id = await run(parked, {});
    await waitFor(
      async () =>
        (await mesh.http('GET', `jobs_u/get/${id}`, 'admin')).json<{ status: string }>().status ===
        'suspended',
      { timeoutMs: 60_000 },
    );
    const cancelled = await runFlowmesh(['jobs', 'cancel', id, '--reason', 'from the CLI'], { env });
    expect([cancelled.code, cancelled.stdout]).toEqual([0, `job ${id} canceled\n`]);
    const bob = await runFlowmesh(['jobs', 'get', id], { env: { ...env, FLOWMESH_TOKEN: mesh.tokens.bob } });
    expect([bob.code, bob.stderr]).toEqual([1, expect.stringContaining('NOT_FOUND')]);
  }, 180_000);
});

/**
 * Builds the CLI alone (not the whole repository, which other work in progress may break); not
 * where the build already ran (`FLOWMESH_SKIP_BUILD=1`, as CI sets after `npm run build`).
 */
function buildCli(): void {
  if (process.env.FLOWMESH_SKIP_BUILD === '1') return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const lockDir = join(REPO_ROOT, 'node_modules', '.cache');
  mkdirSync(lockDir, { recursive: true });
  const lock = join(lockDir, 'flowmesh-build.lock');
  const result = spawnSync('flock', [lock, process.execPath, tsc, '-b', 'cli'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`cannot build the CLI:\n${result.stdout}${result.stderr}`);
  // runFlowmesh would build everything first; this test runs only the CLI.
  process.env.FLOWMESH_SKIP_BUILD = '1';
}
