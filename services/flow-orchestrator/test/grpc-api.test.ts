import { randomUUID } from 'node:crypto';
import { GRPC_STATUS, GRPC_SERVICES, grpcProtoRoot } from '@flowmesh/contracts/grpc';
import { credentials, loadPackageDefinition, makeClientConstructor, type Client } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { failureOf, FlowmeshGrpcClient, readWatch, waitFor } from '@flowmesh/testing';
import { service as healthService } from 'grpc-health-check';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptStep, startRunApiMesh, type Member, type RunApiMesh } from './support/run-api-mesh.js';

const threeSteps = {
  modules: [
    scriptStep('one', 'return 1;'),
    scriptStep('two', "console.log('half way'); return 2;"),
    scriptStep('three', 'return { sum: a + b };', { a: 'results.one', b: 'results.two' }),
  ],
};

/** Parks after `request` until answered, then returns what it was resumed with. */
const approvalFlow = {
  modules: [
    { ...scriptStep('request', "return 'please';"), suspend: { required_events: 1, timeout: 600 } },
    scriptStep('decision', 'return resume;', { resume: 'resume' }),
  ],
};
const sleeping = { modules: [scriptStep('nap', 'await new Promise((r) => setTimeout(r, 120_000));')] };

// The gRPC API (flowmesh.v1) of the orchestrator with the real registry and a worker, through
// @grpc/grpc-js as a client: every method, the same permission checks as HTTP and NATS, mapped
// errors, deadlines, a watch resumed after a disconnect, health and reflection.
describe('flow-orchestrator gRPC API', () => {
  let mesh: RunApiMesh;
  let grpc: FlowmeshGrpcClient;

  beforeAll(async () => {
    mesh = await startRunApiMesh({ orchestratorEnv: { FLOWMESH_GRPC_PORT: '0' } });
    grpc = new FlowmeshGrpcClient(mesh.orchestrator.extraAddress!);
  }, 120_000);

  afterAll(async () => {
    grpc?.close();
    await mesh?.stop();
  });

  const jobs = <T = Record<string, unknown>>(
    method: string,
    request: Record<string, unknown>,
    as: Member = 'admin',
  ) => grpc.call<T>('Jobs', method, { workspace: 'main', ...request }, mesh.tokens[as]);
  const failure = async (promise: Promise<unknown>) =>
    failureOf(
      await promise.then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
  const startFlow = async (value: unknown, as: Member = 'admin') =>
    (await jobs<{ job_id: string }>('RunFlow', { value, args: {} }, as)).job_id;
  const ended = (id: string, as: Member = 'admin') =>
    waitFor(
      async () => {
        const reply = await jobs<{ completed: boolean }>('WaitResult', { id, timeout_ms: 5_000 }, as);
        return reply.completed ? reply : undefined;
      },
      { timeoutMs: 60_000, description: `job ${id} to end` },
    );
  const suspended = (id: string) =>
    waitFor(async () => (await jobs<{ status: string }>('GetJob', { id })).status === 'suspended', {
      timeoutMs: 30_000,
      description: `job ${id} to suspend`,
    });

  it('serves the standard health service and server reflection', async () => {
    const Health = makeClientConstructor(healthService, 'Health');
    const health = new Health(grpc.address, credentials.createInsecure()) as Client & {
      check(
        request: { service: string },
        done: (error: Error | null, reply: { status: string }) => void,
      ): void;
    };
    const check = (service: string) =>
      new Promise<string>((resolve, reject) =>
        health.check({ service }, (error, reply) => (error ? reject(error) : resolve(reply.status))),
      );
    expect(await check('')).toBe('SERVING');
    expect(await check(GRPC_SERVICES.jobs)).toBe('SERVING');
    expect(failureOf(await check('no.such.Service').catch((e: unknown) => e)).code).toBe(
      GRPC_STATUS.NOT_FOUND,
    );
    health.close();

    const reflectionRoot = join(
      dirname(createRequire(import.meta.url).resolve('@grpc/reflection')),
      '../proto',
    );
    const definition = loadSync('grpc/reflection/v1/reflection.proto', {
      includeDirs: [reflectionRoot],
      keepCase: true,
    });
    const { ServerReflection } = (
      loadPackageDefinition(definition) as never as {
        grpc: { reflection: { v1: { ServerReflection: new (a: string, c: unknown) => Client } } };
      }
    ).grpc.reflection.v1;
    const reflection = new ServerReflection(grpc.address, credentials.createInsecure()) as Client & {
      ServerReflectionInfo(): NodeJS.ReadWriteStream & { write(m: object): boolean; end(): void };
    };
    const stream = reflection.ServerReflectionInfo();
    const answer = new Promise<{ list_services_response: { service: { name: string }[] } }>(
      (resolve, reject) => {
        stream.on('data', resolve);
        stream.on('error', reject);
      },
    );
    stream.write({ list_services: '' });
    const names = (await answer).list_services_response.service.map((s) => s.name);
    stream.end();
    reflection.close();
    expect(names).toEqual(expect.arrayContaining([...Object.values(GRPC_SERVICES), 'grpc.health.v1.Health']));
  });

  it('refuses every method without a token, or with a bad one: UNAUTHENTICATED, the mesh error in trailers', async () => {
    for (const service of ['Jobs', 'Resources', 'Variables'] as const) {
      const methods = grpcProtoRoot().lookupService(`flowmesh.v1.${service}`).methodsArray;
      for (const method of methods.filter((m) => !m.responseStream)) {
        // Valid requests (fields a message lacks are dropped): only the token is wrong.
        const id = randomUUID();
        const request = {
          ...{
            workspace: 'main',
            id,
            path: 'u/admin/x',
            timeout_ms: 0,
            flow_job_id: id,
            node_id: 'a',
            step_id: 'a',
          },
          ...{ resource_type: 'state', value: service === 'Variables' ? 'v' : { modules: [] } },
        };
        const without = await failure(grpc.call(service, method.name, request, undefined));
        expect([method.name, without.code, without.meshCode]).toEqual([
          method.name,
          GRPC_STATUS.UNAUTHENTICATED,
          'UNAUTHENTICATED',
        ]);
        expect(without.details).toContain('missing bearer token');
        const bad = await failure(
          grpc.call(service, method.name, request, 'fm_not_a_token_at_all_000000000'),
        );
        expect([method.name, bad.code, bad.envelope?.code]).toEqual([
          method.name,
          GRPC_STATUS.UNAUTHENTICATED,
          'UNAUTHENTICATED',
        ]);
      }
    }
    const watch = grpc.watch({ workspace: 'main', id: randomUUID() }, 'fm_not_a_token_at_all_000000000');
    const refused = await new Promise<unknown>((resolve) => {
      watch.on('error', resolve);
      watch.on('data', () => undefined);
    });
    expect(failureOf(refused).code).toBe(GRPC_STATUS.UNAUTHENTICATED);
  });

  it('runs an inline flow and reads it back: RunFlow, WaitResult, GetJob, GetResult, ResultByNode, ListJobs, GetLogs', async () => {
    const id = await startFlow(threeSteps);
    const result = await ended(id);
    expect(result).toEqual({
      completed: true,
      success: true,
      started: true,
      status: 'completed',
      result: { sum: 3 },
    });

    const job = await jobs('GetJob', { id });
    expect(job).toMatchObject({
      id,
      kind: 'flowpreview',
      status: 'completed',
      root_job: id,
      result: { sum: 3 },
    });
    expect((job.flow_status as { modules: { type: string }[] }).modules.map((m) => m.type)).toEqual([
      'Success',
      'Success',
      'Success',
    ]);
    expect(job.parent_job).toBeUndefined();
    expect(await jobs('GetResult', { id })).toEqual(result);
    expect(await jobs('ResultByNode', { flow_job_id: id, node_id: 'two' })).toEqual({ result: 2 });

    const listed = await jobs<{ jobs: { id: string; success?: boolean }[] }>('ListJobs', { limit: 1_000 });
    expect(listed.jobs.find((j) => j.id === id)).toMatchObject({ id, success: true, status: 'completed' });
    const children = await jobs<{ jobs: { flow_step_id?: string }[] }>('ListJobs', {
      parent_job: id,
      include_children: true,
    });
    expect(children.jobs.map((j) => j.flow_step_id).sort()).toEqual(['one', 'three', 'two']);

    const stepTwo = (
      await jobs<{ jobs: { id: string; flow_step_id?: string }[] }>('ListJobs', { root_job: id })
    ).jobs.find((j) => j.flow_step_id === 'two')!;
    const logs = await jobs<{ logs: string; completed: boolean }>('GetLogs', { id: stepTwo.id });
    expect(logs.completed).toBe(true);
    expect(logs.logs).toContain('half way');
  });

  it('runs a saved flow by path and an inline script: RunFlow by path, RunScript', async () => {
    const path = `u/admin/grpc_${randomUUID().slice(0, 8)}`;
    await mesh.items.createFlow({
      actor: { token: mesh.tokens.admin },
      workspace: 'main',
      path,
      summary: 's',
      value: threeSteps,
    });
    const byPath = (await jobs<{ job_id: string }>('RunFlow', { path, args: {} })).job_id;
    expect(await ended(byPath)).toMatchObject({ success: true, result: { sum: 3 } });
    expect(await jobs('GetJob', { id: byPath })).toMatchObject({ kind: 'flow', path });

    const script = await jobs<{ job_id: string }>('RunScript', {
      content: 'export function main(x: number) { return { doubled: x * 2, list: [null, true, "s"] }; }',
      language: 'bun',
      args: { x: 21 },
    });
    expect(await ended(script.job_id)).toMatchObject({
      success: true,
      result: { doubled: 42, list: [null, true, 's'] },
    });
  });

  it('refuses a bad request with INVALID_ARGUMENT naming the field, as the NATS contract does', async () => {
    const noFlow = await failure(jobs('RunFlow', { args: {} }));
    expect([noFlow.code, noFlow.meshCode]).toEqual([GRPC_STATUS.INVALID_ARGUMENT, 'VALIDATION_FAILED']);
    expect(noFlow.details).toContain('value: give the path of a saved flow or a flow value');
    const badId = await failure(jobs('GetJob', { id: 'not-a-uuid' }));
    expect([badId.code, badId.details]).toEqual([
      GRPC_STATUS.INVALID_ARGUMENT,
      expect.stringContaining('id:'),
    ]);
    expect(badId.envelope?.details).toMatchObject({ issues: [{ path: 'id' }] });
    // The standard rich error too, which any gRPC library decodes.
    expect(badId.status).toEqual({
      code: GRPC_STATUS.INVALID_ARGUMENT,
      message: badId.details,
      errorInfo: {
        reason: 'VALIDATION_FAILED',
        domain: 'flowmesh.dev',
        metadata: { message: badId.details },
      },
    });
    const badOffset = grpc.watch({ workspace: 'main', id: randomUUID(), after: 'soon' }, mesh.tokens.admin);
    const refused = await new Promise<unknown>((resolve) => {
      badOffset.on('error', resolve);
      badOffset.on('data', () => undefined);
    });
    expect(failureOf(refused)).toMatchObject({
      code: GRPC_STATUS.INVALID_ARGUMENT,
      meshCode: 'VALIDATION_FAILED',
    });
  });

  it('hides a job from a member who may not see it (NOT_FOUND, as over HTTP) and lets its creator see it', async () => {
    const id = await startFlow(threeSteps, 'alice');
    await ended(id, 'alice');
    for (const method of ['GetJob', 'GetResult', 'GetLogs', 'CancelJob']) {
      const hidden = await failure(jobs(method, { id }, 'bob'));
      expect([method, hidden.code, hidden.meshCode]).toEqual([method, GRPC_STATUS.NOT_FOUND, 'NOT_FOUND']);
    }
    expect(
      (await jobs<{ jobs: { id: string }[] }>('ListJobs', {}, 'bob')).jobs.map((j) => j.id),
    ).not.toContain(id);
    expect(await jobs('GetJob', { id }, 'alice')).toMatchObject({ id, status: 'completed' });
    const elsewhere = await failure(
      grpc.call('Jobs', 'GetJob', { workspace: 'nowhere', id }, mesh.tokens.alice),
    );
    expect([GRPC_STATUS.NOT_FOUND, GRPC_STATUS.UNAUTHENTICATED, GRPC_STATUS.PERMISSION_DENIED]).toContain(
      elsewhere.code,
    );
  });

  it('cancels a job: CancelJob ends it cancelled, a second cancel answers false', async () => {
    const id = await startFlow(sleeping);
    expect(await jobs('CancelJob', { id, reason: 'not needed' })).toEqual({ cancelled: true });
    expect(await ended(id)).toMatchObject({ status: 'cancelled', success: false });
    expect(await jobs('GetJob', { id })).toMatchObject({ canceled_reason: 'not needed' });
    expect(await jobs('CancelJob', { id })).toEqual({ cancelled: false });
  });

  it('resumes a suspended flow, and rejects another: ResumeJob as the caller', async () => {
    const approved = await startFlow(approvalFlow);
    await suspended(approved);
    expect(await jobs('ResumeJob', { id: approved, payload: { ok: 'go' } }, 'alice')).toEqual({
      outcome: 'resumed',
    });
    expect(await ended(approved)).toMatchObject({ success: true, result: { ok: 'go' } });
    const status = (
      await jobs<{ flow_status: { modules: { approvers?: { approver: string }[] }[] } }>('GetJob', {
        id: approved,
      })
    ).flow_status;
    expect(status.modules[0].approvers?.map((a) => a.approver)).toEqual(['alice']);

    const rejected = await startFlow(approvalFlow);
    await suspended(rejected);
    expect(await jobs('ResumeJob', { id: rejected, approve: false })).toEqual({ outcome: 'cancelled' });
    expect(await ended(rejected)).toMatchObject({
      success: false,
      result: { error: { name: 'SuspendedDisapproved' } },
    });
    const notWaiting = await failure(jobs('ResumeJob', { id: rejected }));
    expect(notWaiting.code).toBe(GRPC_STATUS.NOT_FOUND);
  });

  it('reads and writes resources and variables as the caller, with the registry checks', async () => {
    const name = `grpc_${randomUUID().slice(0, 8)}`;
    const call = (
      service: 'Resources' | 'Variables',
      method: string,
      request: Record<string, unknown>,
      as: Member = 'alice',
    ) => grpc.call(service, method, { workspace: 'main', ...request }, mesh.tokens[as]);
    const path = `u/alice/${name}`;
    const value = { host: 'db.internal', port: 5432, tls: true, tags: ['a', null] };
    const created = await call('Resources', 'CreateResource', {
      path,
      resource_type: 'state',
      value,
      description: 'db',
    });
    expect(created).toMatchObject({
      path,
      resource_type: 'state',
      value,
      description: 'db',
      created_by: 'alice',
    });
    expect(await call('Resources', 'GetResource', { path })).toMatchObject({ path, value });
    const updated = await call('Resources', 'UpdateResource', { path, value: { ...value, port: 6543 } });
    expect(updated).toMatchObject({ value: { port: 6543 } });
    const listed = (await call('Resources', 'ListResources', { path_prefix: `u/alice/${name}` })) as {
      resources: { path: string; value?: unknown }[];
    };
    expect(listed.resources.map((r) => [r.path, r.value])).toEqual([[path, undefined]]);
    const exists = await failure(
      call('Resources', 'CreateResource', { path, resource_type: 'state', value }),
    );
    expect([exists.code, exists.meshCode]).toEqual([GRPC_STATUS.ALREADY_EXISTS, 'CONFLICT']);
    // bob may neither read nor write alice's items.
    const hidden = await failure(call('Resources', 'GetResource', { path }, 'bob'));
    expect(hidden.code).toBe(GRPC_STATUS.NOT_FOUND);
    const denied = await failure(call('Resources', 'UpdateResource', { path, value: 1 }, 'bob'));
    expect([GRPC_STATUS.NOT_FOUND, GRPC_STATUS.PERMISSION_DENIED]).toContain(denied.code);
    expect(await call('Resources', 'DeleteResource', { path })).toEqual({ deleted: true });
    expect((await failure(call('Resources', 'GetResource', { path }))).code).toBe(GRPC_STATUS.NOT_FOUND);

    const secret = `u/alice/${name}_key`;
    expect(
      await call('Variables', 'CreateVariable', { path: secret, value: 's3cret', is_secret: true }),
    ).toMatchObject({
      path: secret,
      is_secret: true,
    });
    expect(await call('Variables', 'GetVariable', { path: secret })).toMatchObject({ value: 's3cret' });
    expect(
      (await call('Variables', 'GetVariable', { path: secret, decrypt_secret: false })).value,
    ).toBeUndefined();
    await call('Variables', 'UpdateVariable', { path: secret, value: 'rotated' });
    expect(await call('Variables', 'GetVariable', { path: secret })).toMatchObject({ value: 'rotated' });
    const variables = (await call('Variables', 'ListVariables', { path_prefix: secret })) as {
      variables: { path: string; value?: string }[];
    };
    expect(variables.variables.map((v) => [v.path, v.value])).toEqual([[secret, undefined]]);
    expect((await failure(call('Variables', 'GetVariable', { path: secret }, 'bob'))).code).toBe(
      GRPC_STATUS.NOT_FOUND,
    );
    expect(await call('Variables', 'DeleteVariable', { path: secret })).toEqual({ deleted: true });
  });

  /** A watch as the admin until it ends, or until `stopAfter` events (then disconnects). */
  const watch = (request: Record<string, unknown>, stopAfter = Infinity) =>
    readWatch(
      grpc,
      { workspace: 'main', ...request },
      mesh.tokens.admin,
      (events) => events.length >= stopAfter,
    );

  it('watches a run: each step started and finished, then the end; a late reader gets the same', async () => {
    const id = await startFlow(threeSteps);
    const events = await watch({ id });
    expect(events.map((e) => [e.kind, e.body.step_id ?? e.body.status])).toEqual([
      ['step_started', 'one'],
      ['step_finished', 'one'],
      ['step_started', 'two'],
      ['step_finished', 'two'],
      ['step_started', 'three'],
      ['step_finished', 'three'],
      ['end', 'completed'],
    ]);
    expect(events.at(-1)!.body).toEqual({ status: 'completed', success: true });
    expect(events[1].body).toMatchObject({ state: 'Success', index: 0 });
    expect(typeof events[1].body.job).toBe('string');
    expect(new Set(events.map((e) => e.offset)).size).toBe(events.length);
    expect(await watch({ id })).toEqual(events);
    // From any offset, the rest; after the end, nothing.
    expect(await watch({ id, after: events[2].offset })).toEqual(events.slice(3));
    expect(await watch({ id, after: events.at(-1)!.offset })).toEqual([]);
  });

  it('resumes a watch after a disconnect while the run goes on, without loss or repeat', async () => {
    const id = await startFlow(approvalFlow);
    // The run parks on its approval: the first step's start and finish are told, then nothing.
    const first = await watch({ id }, 1);
    expect(first.map((e) => e.kind)).toEqual(['step_started']);
    await suspended(id);
    // Gone while the run waits; meanwhile it goes on.
    expect(await jobs('ResumeJob', { id, payload: { ok: 1 } })).toEqual({ outcome: 'resumed' });
    const rest = await watch({ id, after: first.at(-1)!.offset });
    const whole = await watch({ id });
    expect([...first, ...rest]).toEqual(whole);
    expect(whole.map((e) => [e.kind, e.body.step_id ?? e.body.status])).toEqual([
      ['step_started', 'request'],
      ['step_finished', 'request'],
      ['step_started', 'decision'],
      ['step_finished', 'decision'],
      ['end', 'completed'],
    ]);
  });

  it('honours deadlines: a wait answers before the deadline, a call past it fails DEADLINE_EXCEEDED', async () => {
    const id = await startFlow(approvalFlow);
    await suspended(id);
    // Asked to wait 25 s with 4 s left: the answer comes in time, the job still waiting.
    const waited = await grpc.call(
      'Jobs',
      'WaitResult',
      { workspace: 'main', id, timeout_ms: 25_000 },
      mesh.tokens.admin,
      4_000,
    );
    expect(waited).toMatchObject({ completed: false, status: 'suspended' });
    const late = await failure(
      grpc.call('Jobs', 'WaitResult', { workspace: 'main', id, timeout_ms: 25_000 }, mesh.tokens.admin, 1),
    );
    expect(late.code).toBe(GRPC_STATUS.DEADLINE_EXCEEDED);
    await jobs('CancelJob', { id });
  });
});
