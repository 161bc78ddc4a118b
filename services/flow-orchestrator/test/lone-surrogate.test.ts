import { createOrchestratorJobsClient, MeshError } from '@flowmesh/contracts';
import { waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptStep, startRunApiMesh, type RunApiMesh } from './support/run-api-mesh.js';

const echo = {
  modules: [scriptStep('echo', 'return name;', { name: 'flow_input.name' })],
};
const LONE = '\ud800';
const issueAt = (path: string) => ({
  issues: [{ path, message: expect.stringContaining('lone UTF-16 surrogate') as unknown }],
});

// A string with a lone UTF-16 surrogate is valid to JSON.parse but not to PostgreSQL's jsonb:
// every entry point refuses it as VALIDATION_FAILED naming the field, never a 500 at the write.
describe('lone surrogates in input', () => {
  let mesh: RunApiMesh;

  beforeAll(async () => {
    mesh = await startRunApiMesh();
    await mesh.items.createFlow({
      actor: { token: mesh.tokens.admin },
      workspace: 'main',
      path: 'u/admin/echo',
      summary: 'echo',
      value: echo,
    });
  }, 120_000);

  afterAll(async () => {
    await mesh?.stop();
  });

  it('refuses them in a run over HTTP with 400 naming the field', async () => {
    const preview = await mesh.http('POST', 'jobs/run/preview_flow', 'admin', {
      value: echo,
      args: { name: LONE },
    });
    expect([preview.status, preview.json()]).toEqual([
      400,
      expect.objectContaining({ code: 'VALIDATION_FAILED', details: issueAt('args.name') }),
    ]);
    const byPath = await mesh.http('POST', 'jobs/run/f/u/admin/echo', 'admin', { name: `a${LONE}b` });
    expect([byPath.status, byPath.json()]).toEqual([
      400,
      expect.objectContaining({ code: 'VALIDATION_FAILED', details: issueAt('body.name') }),
    ]);
    // Windmill's GET variant: the arguments as base64 JSON in `?payload=`.
    const payload = Buffer.from(JSON.stringify({ name: LONE })).toString('base64url');
    const byGet = await mesh.http('GET', `jobs/run_wait_result/f/u/admin/echo?payload=${payload}`, 'admin');
    expect([byGet.status, byGet.json()]).toEqual([
      400,
      expect.objectContaining({ code: 'VALIDATION_FAILED', details: issueAt('payload.name') }),
    ]);
  });

  it('refuses them in a JSON query filter (schedules ?args=) with 400', async () => {
    const answer = await mesh.http(
      'GET',
      `schedules/list?args=${encodeURIComponent('{"name":"\\ud800"}')}`,
      'admin',
    );
    expect([answer.status, answer.json()]).toEqual([
      400,
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        details: {
          issues: [{ path: 'args', message: expect.stringContaining('name: holds a lone') as unknown }],
        },
      }),
    ]);
  });

  it('refuses them in orchestrator.job.run_flow over NATS', async () => {
    const jobs = createOrchestratorJobsClient(mesh.registry.client);
    const error = await jobs
      .runFlow({ actor: { token: mesh.tokens.admin }, workspace: 'main', value: echo, args: { name: LONE } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MeshError);
    expect([(error as MeshError).code, (error as MeshError).details]).toEqual([
      'VALIDATION_FAILED',
      issueAt('args.name'),
    ]);
  });

  it('refuses them in what the registry stores (resources, variables, flows)', async () => {
    const inMain = { actor: { token: mesh.tokens.admin }, workspace: 'main' };
    const refused = (call: Promise<unknown>) =>
      call.then(
        () => 'accepted',
        (e: unknown) => [(e as MeshError).code, (e as MeshError).details],
      );
    expect(
      await refused(
        mesh.items.createResource({
          ...inMain,
          path: 'u/admin/r',
          resource_type: 'openai',
          value: { api_key: LONE },
        }),
      ),
    ).toEqual(['VALIDATION_FAILED', issueAt('value.api_key')]);
    expect(
      await refused(
        mesh.items.createVariable({ ...inMain, path: 'u/admin/v', value: LONE, is_secret: false }),
      ),
    ).toEqual(['VALIDATION_FAILED', issueAt('value')]);
    expect(
      await refused(mesh.items.createFlow({ ...inMain, path: 'u/admin/f', summary: LONE, value: echo })),
    ).toEqual(['VALIDATION_FAILED', issueAt('summary')]);
  });

  it('still runs astral characters (real surrogate pairs) through to the result', async () => {
    const name = 'Ada 😀 𝄞';
    const started = await mesh.http('POST', 'jobs/run/preview_flow', 'admin', {
      value: echo,
      args: { name },
    });
    expect(started.status).toBe(201);
    const done = await waitFor(
      async () => {
        const answer = await mesh.http('GET', `jobs_u/completed/get_result_maybe/${started.text}`, 'admin');
        const body = answer.json<{ completed: boolean; success?: boolean; result: unknown }>();
        return body.completed ? body : undefined;
      },
      { timeoutMs: 60_000, description: 'the astral run to complete' },
    );
    expect([done.success, done.result]).toEqual([true, name]);
  });
});
