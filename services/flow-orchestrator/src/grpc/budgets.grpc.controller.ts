import {
  createGatewayBudgetClient,
  gatewayBudgetContract as budgets,
  type GatewayBudgetClient,
} from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import type { Metadata, ServerUnaryCall } from '@grpc/grpc-js';
import { Controller, UseFilters } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { serveUnary } from './grpc-calls.js';
import { GrpcErrorFilter } from './grpc-error.filter.js';

type Call = ServerUnaryCall<object, object>;

/**
 * `flowmesh.v1.Budgets`: the llm-gateway's own requests (`gateway.budget.*`, `gateway.spend.list`),
 * asked with the call's bearer token as the actor, so the gateway checks the caller is an admin
 * of the workspace exactly as over NATS and HTTP.
 */
@Controller()
@UseFilters(GrpcErrorFilter)
export class BudgetsGrpcController {
  private readonly gateway: GatewayBudgetClient;

  constructor(mesh: MeshClient) {
    this.gateway = createGatewayBudgetClient(mesh);
  }

  @GrpcMethod('Budgets', 'SetBudget')
  setBudget(_: object, __: Metadata, call: Call) {
    return serveUnary(call, budgets.setBudget.request, (request) => this.gateway.setBudget(request));
  }

  @GrpcMethod('Budgets', 'DeleteBudget')
  deleteBudget(_: object, __: Metadata, call: Call) {
    return serveUnary(call, budgets.deleteBudget.request, (request) => this.gateway.deleteBudget(request));
  }

  @GrpcMethod('Budgets', 'ListSpend')
  listSpend(_: object, __: Metadata, call: Call) {
    return serveUnary(call, budgets.listSpend.request, (request) => this.gateway.listSpend(request));
  }
}
