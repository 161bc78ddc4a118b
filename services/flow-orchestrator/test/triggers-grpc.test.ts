import {
  GRPC_SERVICES,
  GRPC_STATUS,
  grpcMessageToJson,
  grpcProtoRoot,
  jsonToGrpcMessage,
  loadGrpcPackageDefinition,
} from '@flowmesh/contracts/grpc';
import { failureOf } from '@flowmesh/testing';
import { credentials, loadPackageDefinition, Metadata, type Client, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRunApiMesh, type Member, type RunApiMesh } from './support/run-api-mesh.js';

type TriggerService = 'Schedules' | 'HttpTriggers';

/** `flowmesh.v1.Schedules` and `HttpTriggers` as a Node client loads them from the protos, JSON in and out. */
class TriggersGrpcClient {
  private readonly clients: Record<TriggerService, Client & Record<string, unknown>>;

  constructor(address: string) {
    const loaded = loadPackageDefinition(loadGrpcPackageDefinition()) as unknown as {
      flowmesh: { v1: Record<TriggerService, new (address: string, creds: unknown) => Client> };
    };
    const make = (service: TriggerService) =>
      new loaded.flowmesh.v1[service](address, credentials.createInsecure()) as Client &
        Record<string, unknown>;
    this.clients = { Schedules: make('Schedules'), HttpTriggers: make('HttpTriggers') };
  }

  call<T = Record<string, unknown>>(
    service: TriggerService,
    method: string,
    request: Record<string, unknown>,
    token: string | undefined,
  ): Promise<T> {
    const rpc = grpcProtoRoot().lookupService(`flowmesh.v1.${service}`).methods[method];
    const client = this.clients[service];
    const metadata = new Metadata();
    if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
    return new Promise<T>((resolve, reject) =>
      (client[method] as (...args: unknown[]) => void).call(
        client,
        jsonToGrpcMessage(rpc.resolvedRequestType!.fullName, request),
        metadata,
        { deadline: Date.now() + 30_000 },
        (error: ServiceError | null, reply: object) =>
          error ? reject(error) : resolve(grpcMessageToJson(rpc.resolvedResponseType!.fullName, reply) as T),
      ),
    );
  }

  close(): void {
    for (const client of Object.values(this.clients)) client.close();
  }
}

/** Never due while the test runs: 03:00 on January 1st. */
const YEARLY = '0 0 3 1 1 *';

// Schedules and HTTP routes over gRPC (flowmesh.v1) on the orchestrator with the real registry
// and a worker: every method, proto3's unset booleans, the same validation and permission checks
// as HTTP and NATS, and a route made over gRPC served at /api/r/.
describe('flow-orchestrator gRPC API: Schedules and HttpTriggers', () => {
  let mesh: RunApiMesh;
  let grpc: TriggersGrpcClient;

  beforeAll(async () => {
    mesh = await startRunApiMesh({ orchestratorEnv: { FLOWMESH_GRPC_PORT: '0' } });
    grpc = new TriggersGrpcClient(mesh.orchestrator.extraAddress!);
    const inMain = { actor: { token: mesh.tokens.admin }, workspace: 'main' };
    await mesh.items.createScript({
      ...inMain,
      path: 'u/admin/echo',
      summary: 'echo',
      language: 'bun',
      content: 'export async function main(id: string, body: unknown) { return { id, body }; }',
    });
    await mesh.items.createFlow({
      ...inMain,
      path: 'u/admin/nightly',
      summary: 'nightly',
      value: { modules: [] },
    });
  }, 120_000);

  afterAll(async () => {
    grpc?.close();
    await mesh?.stop();
  });

  const schedules = <T = Record<string, unknown>>(method: string, request: object, as: Member = 'admin') =>
    grpc.call<T>('Schedules', method, { workspace: 'main', ...request }, mesh.tokens[as]);
  const routes = <T = Record<string, unknown>>(method: string, request: object, as: Member = 'admin') =>
    grpc.call<T>('HttpTriggers', method, { workspace: 'main', ...request }, mesh.tokens[as]);
  const failure = async (promise: Promise<unknown>) =>
    failureOf(
      await promise.then(
        () => expect.fail('the call succeeded'),
        (e: unknown) => e,
      ),
    );

  it('serves every method of both services (none UNIMPLEMENTED) and refuses each without a token', async () => {
    for (const service of ['Schedules', 'HttpTriggers'] as const) {
      expect(Object.values(GRPC_SERVICES)).toContain(`flowmesh.v1.${service}`);
      for (const method of grpcProtoRoot().lookupService(`flowmesh.v1.${service}`).methodsArray) {
        const without = await failure(grpc.call(service, method.name, { workspace: 'main' }, undefined));
        expect([method.name, without.code, without.meshCode]).toEqual([
          method.name,
          GRPC_STATUS.UNAUTHENTICATED,
          'UNAUTHENTICATED',
        ]);
      }
    }
  });

  it('schedules: create (a script when is_flow is unset), get, list, preview, disable, update, exists, delete', async () => {
    const path = 'u/admin/grpc_report';
    const created = await schedules('CreateSchedule', {
      path,
      schedule: YEARLY,
      timezone: 'Europe/Paris',
      script_path: 'u/admin/echo',
      args: { id: 'nightly', body: { deep: [1, 2] } },
      summary: 'made over gRPC',
    });
    expect(created).toEqual({ path });

    const schedule = await schedules('GetSchedule', { path });
    expect(schedule).toMatchObject({
      workspace_id: 'main',
      path,
      schedule: YEARLY,
      timezone: 'Europe/Paris',
      script_path: 'u/admin/echo',
      args: { id: 'nightly', body: { deep: [1, 2] } },
      summary: 'made over gRPC',
      enabled: true,
      permissioned_as: 'u/admin',
      edited_by: 'admin',
    });
    // proto3 does not send false: a reply's unset bool is false to the client.
    expect(schedule.is_flow ?? false).toBe(false);

    const listed = await schedules<{ schedules: { path: string }[] }>('ListSchedules', {
      path_start: 'u/admin/grpc',
    });
    expect(listed.schedules.map((s) => s.path)).toEqual([path]);

    const preview = await schedules<{ next: string[] }>('PreviewSchedule', {
      schedule: '0 30 9 * * *',
      timezone: 'UTC',
      count: 3,
    });
    expect(preview.next).toHaveLength(3);
    const times = preview.next.map((at) => Date.parse(at));
    expect(times.every((t, i) => i === 0 || t - times[i - 1] === 86_400_000)).toBe(true);
    expect(preview.next.every((at) => new Date(at).toISOString().endsWith('T09:30:00.000Z'))).toBe(true);

    // Unset `enabled` is false: disabling needs no field at all.
    expect(await schedules('SetScheduleEnabled', { path })).toMatchObject({ path });
    expect((await schedules('GetSchedule', { path })).enabled ?? false).toBe(false);
    expect(await schedules('SetScheduleEnabled', { path, enabled: true })).toEqual({ path, enabled: true });

    await schedules('UpdateSchedule', {
      path,
      schedule: '0 0 4 1 1 *',
      timezone: 'UTC',
      no_flow_overlap: true,
    });
    expect(await schedules('GetSchedule', { path })).toMatchObject({
      schedule: '0 0 4 1 1 *',
      timezone: 'UTC',
      no_flow_overlap: true,
      script_path: 'u/admin/echo',
    });

    expect(await schedules('ScheduleExists', { path })).toEqual({ exists: true });
    expect(await schedules('DeleteSchedule', { path })).toMatchObject({ path, deleted: true });
    expect((await schedules('ScheduleExists', { path })).exists ?? false).toBe(false);
    const gone = await failure(schedules('GetSchedule', { path }));
    expect([gone.code, gone.meshCode]).toEqual([GRPC_STATUS.NOT_FOUND, 'NOT_FOUND']);
  });

  it('schedules: a bad cron or timezone is INVALID_ARGUMENT naming the field; another user sees nothing', async () => {
    const base = { path: 'u/admin/grpc_bad', script_path: 'u/admin/nightly', is_flow: true };
    const cron = await failure(
      schedules('CreateSchedule', { ...base, schedule: '0 0 99 * * *', timezone: 'UTC' }),
    );
    expect([cron.code, cron.meshCode]).toEqual([GRPC_STATUS.INVALID_ARGUMENT, 'VALIDATION_FAILED']);
    expect(JSON.stringify(cron.envelope?.details)).toContain('schedule');
    const zone = await failure(
      schedules('CreateSchedule', { ...base, schedule: YEARLY, timezone: 'Mars/Olympus' }),
    );
    expect([zone.code, zone.meshCode]).toEqual([GRPC_STATUS.INVALID_ARGUMENT, 'VALIDATION_FAILED']);
    expect(JSON.stringify(zone.envelope?.details)).toContain('timezone');

    await schedules('CreateSchedule', { ...base, schedule: YEARLY, timezone: 'UTC' });
    const hidden = await failure(schedules('GetSchedule', { path: base.path }, 'bob'));
    expect([hidden.code, hidden.meshCode]).toEqual([GRPC_STATUS.NOT_FOUND, 'NOT_FOUND']);
    const listed = await schedules<{ schedules?: unknown[] }>('ListSchedules', {}, 'bob');
    expect(listed.schedules ?? []).toEqual([]);
    const refused = await failure(schedules('DeleteSchedule', { path: base.path }, 'bob'));
    expect(refused.code).toBe(GRPC_STATUS.NOT_FOUND);
    expect(await schedules('ScheduleExists', { path: base.path })).toEqual({ exists: true });
  });

  it('routes: create (a script when is_flow is unset) serves at /api/r/, then get, list, route exists, disable, update, delete', async () => {
    const path = 'u/admin/grpc_orders';
    const trigger = {
      path,
      route_path: 'grpc/orders/:id',
      script_path: 'u/admin/echo',
      http_method: 'post',
      authentication_method: 'none',
      request_type: 'sync',
    };
    const created = await routes('CreateHttpTrigger', { trigger });
    expect(created).toMatchObject({
      workspace_id: 'main',
      path,
      route_path: 'grpc/orders/:id',
      route_path_key: 'grpc/orders/:',
      script_path: 'u/admin/echo',
      http_method: 'post',
      request_type: 'sync',
      authentication_method: 'none',
      mode: 'enabled',
      enabled: true,
      permissioned_as: 'u/admin',
    });
    expect(created.is_flow ?? false).toBe(false);

    const served = async () =>
      fetch(`${mesh.orchestrator.url}/api/r/grpc/orders/42`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ body: { qty: 3 } }),
      });
    const answer = await served();
    expect(answer.status).toBe(200);
    // Without a preprocessor the body is the arguments, as Windmill's routes.
    expect(await answer.json()).toMatchObject({ body: { qty: 3 } });

    expect(await routes('GetHttpTrigger', { path })).toMatchObject({ path, route_path: 'grpc/orders/:id' });
    const listed = await routes<{ triggers: { path: string }[] }>('ListHttpTriggers', {
      path_start: 'u/admin/grpc',
    });
    expect(listed.triggers.map((t) => t.path)).toEqual([path]);
    expect(
      await routes('HttpRouteExists', { route_path: 'grpc/orders/:other', http_method: 'post' }),
    ).toEqual({
      exists: true,
    });
    expect(
      (await routes('HttpRouteExists', { route_path: 'grpc/orders/:id', http_method: 'get' })).exists ??
        false,
    ).toBe(false);

    expect(await routes('SetHttpTriggerEnabled', { path, enabled: false })).toMatchObject({
      mode: 'disabled',
    });
    expect(await routes('SetHttpTriggerEnabled', { path, mode: 'enabled' })).toMatchObject({
      mode: 'enabled',
    });

    const renamed = 'u/admin/grpc_orders_v2';
    const updated = await routes('UpdateHttpTrigger', {
      path,
      trigger: { ...trigger, path: renamed, request_type: 'async', summary: 'v2' },
    });
    expect(updated).toMatchObject({ path: renamed, request_type: 'async', summary: 'v2' });
    expect((await routes('HttpTriggerExists', { path })).exists ?? false).toBe(false);
    expect(await routes('HttpTriggerExists', { path: renamed })).toEqual({ exists: true });

    const hidden = await failure(routes('GetHttpTrigger', { path: renamed }, 'bob'));
    expect([hidden.code, hidden.meshCode]).toEqual([GRPC_STATUS.NOT_FOUND, 'NOT_FOUND']);
    expect(await routes('DeleteHttpTrigger', { path: renamed })).toEqual({ deleted: true });
    expect((await served()).status).toBe(404);
  });

  it('routes: a bad route path or an unsupported field of the contract is INVALID_ARGUMENT naming the field', async () => {
    const bad = await failure(
      routes('CreateHttpTrigger', {
        trigger: {
          path: 'u/admin/grpc_bad',
          route_path: '/leading/slash',
          script_path: 'u/admin/echo',
          http_method: 'get',
          authentication_method: 'none',
        },
      }),
    );
    expect([bad.code, bad.meshCode]).toEqual([GRPC_STATUS.INVALID_ARGUMENT, 'VALIDATION_FAILED']);
    expect(JSON.stringify(bad.envelope?.details)).toContain('route_path');
    const method = await failure(
      routes('CreateHttpTrigger', {
        trigger: {
          path: 'u/admin/grpc_bad',
          route_path: 'ok',
          script_path: 'u/admin/echo',
          http_method: 'trace',
          authentication_method: 'none',
        },
      }),
    );
    expect(JSON.stringify(method.envelope?.details)).toContain('http_method');
  });
});
