import {
  orchestratorHttpTriggersContract as routes,
  orchestratorSchedulesContract as schedules,
} from '@flowmesh/contracts';
import type { Metadata, ServerUnaryCall } from '@grpc/grpc-js';
import { Controller, UseFilters, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { GrpcMethod } from '@nestjs/microservices';
import { z } from 'zod';
import { HttpTriggersApi } from '../triggers/http-routes/http-triggers-api.service.js';
import { SchedulesApi } from '../triggers/schedules/schedules-api.service.js';
import { contractRequest, grpcReply, serveUnary } from './grpc-calls.js';
import { GrpcErrorFilter } from './grpc-error.filter.js';

type Call = ServerUnaryCall<object, object>;

/**
 * proto3 sends no `false`: a route's `trigger.is_flow` left unset is a script, as a top-level
 * `is_flow` or `enabled` left unset is false (given to `contractRequest` as defaults).
 */
const withScriptByDefault = <S extends z.ZodType>(schema: S) =>
  z.preprocess((json) => {
    const request = json as { trigger?: Record<string, unknown> };
    return request.trigger ? { ...request, trigger: { is_flow: false, ...request.trigger } } : request;
  }, schema);
const createRoute = withScriptByDefault(routes.create.request);
const updateRoute = withScriptByDefault(routes.update.request);

/**
 * `flowmesh.v1.Schedules` and `flowmesh.v1.HttpTriggers`: the use cases behind
 * `orchestrator.schedule.*` and `orchestrator.http_trigger.*` (the same `SchedulesApi` and
 * `HttpTriggersApi` their NATS handlers and HTTP controllers call), as the caller of the call's
 * bearer token, so every read and write is checked as over NATS and HTTP. Both live in the
 * triggers' own modules; they are looked up in the application, not imported a second time
 * (a second SchedulesModule would tick twice).
 */
@Controller()
@UseFilters(GrpcErrorFilter)
export class TriggersGrpcController implements OnModuleInit {
  private schedules!: SchedulesApi;
  private routes!: HttpTriggersApi;

  constructor(private readonly modules: ModuleRef) {}

  onModuleInit(): void {
    this.schedules = this.modules.get(SchedulesApi, { strict: false });
    this.routes = this.modules.get(HttpTriggersApi, { strict: false });
  }

  @GrpcMethod('Schedules', 'CreateSchedule')
  async createSchedule(_: object, __: Metadata, call: Call) {
    const request = contractRequest(call, schedules.create.request, { is_flow: false });
    return grpcReply(call, await this.schedules.create(request));
  }

  @GrpcMethod('Schedules', 'GetSchedule')
  getSchedule(_: object, __: Metadata, call: Call) {
    return serveUnary(call, schedules.get.request, (request) => this.schedules.get(request));
  }

  @GrpcMethod('Schedules', 'ListSchedules')
  listSchedules(_: object, __: Metadata, call: Call) {
    return serveUnary(call, schedules.list.request, (request) => this.schedules.list(request));
  }

  @GrpcMethod('Schedules', 'UpdateSchedule')
  updateSchedule(_: object, __: Metadata, call: Call) {
    return serveUnary(call, schedules.update.request, (request) => this.schedules.update(request));
  }

  @GrpcMethod('Schedules', 'DeleteSchedule')
  deleteSchedule(_: object, __: Metadata, call: Call) {
    return serveUnary(call, schedules.delete.request, (request) => this.schedules.delete(request));
  }

  @GrpcMethod('Schedules', 'SetScheduleEnabled')
  async setScheduleEnabled(_: object, __: Metadata, call: Call) {
    const request = contractRequest(call, schedules.setEnabled.request, { enabled: false });
    return grpcReply(call, await this.schedules.setEnabled(request));
  }

  @GrpcMethod('Schedules', 'PreviewSchedule')
  previewSchedule(_: object, __: Metadata, call: Call) {
    return serveUnary(call, schedules.preview.request, (request) => this.schedules.preview(request));
  }

  @GrpcMethod('Schedules', 'ScheduleExists')
  scheduleExists(_: object, __: Metadata, call: Call) {
    return serveUnary(call, schedules.exists.request, (request) => this.schedules.exists(request));
  }

  @GrpcMethod('HttpTriggers', 'CreateHttpTrigger')
  createHttpTrigger(_: object, __: Metadata, call: Call) {
    return serveUnary(call, createRoute, (request) => this.routes.create(request));
  }

  @GrpcMethod('HttpTriggers', 'GetHttpTrigger')
  getHttpTrigger(_: object, __: Metadata, call: Call) {
    return serveUnary(call, routes.get.request, (request) => this.routes.get(request));
  }

  @GrpcMethod('HttpTriggers', 'ListHttpTriggers')
  listHttpTriggers(_: object, __: Metadata, call: Call) {
    return serveUnary(call, routes.list.request, (request) => this.routes.list(request));
  }

  @GrpcMethod('HttpTriggers', 'UpdateHttpTrigger')
  updateHttpTrigger(_: object, __: Metadata, call: Call) {
    return serveUnary(call, updateRoute, (request) => this.routes.update(request));
  }

  @GrpcMethod('HttpTriggers', 'DeleteHttpTrigger')
  deleteHttpTrigger(_: object, __: Metadata, call: Call) {
    return serveUnary(call, routes.delete.request, (request) => this.routes.delete(request));
  }

  @GrpcMethod('HttpTriggers', 'HttpTriggerExists')
  httpTriggerExists(_: object, __: Metadata, call: Call) {
    return serveUnary(call, routes.exists.request, (request) => this.routes.exists(request));
  }

  @GrpcMethod('HttpTriggers', 'SetHttpTriggerEnabled')
  setHttpTriggerEnabled(_: object, __: Metadata, call: Call) {
    return serveUnary(call, routes.setEnabled.request, (request) => this.routes.setEnabled(request));
  }

  @GrpcMethod('HttpTriggers', 'HttpRouteExists')
  httpRouteExists(_: object, __: Metadata, call: Call) {
    return serveUnary(call, routes.routeExists.request, (request) => this.routes.routeExists(request));
  }
}
