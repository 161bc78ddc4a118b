import {
  createRegistryItemsClient,
  registryItemsContract as items,
  type RegistryItemsClient,
} from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import type { Metadata, ServerUnaryCall } from '@grpc/grpc-js';
import { Controller, UseFilters } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { serveUnary } from './grpc-calls.js';
import { GrpcErrorFilter } from './grpc-error.filter.js';

type Call = ServerUnaryCall<object, object>;

/**
 * `flowmesh.v1.Resources` and `flowmesh.v1.Variables`: the registry's own requests
 * (`registry.resource.*`, `registry.variable.*`), asked with the call's bearer token as the actor,
 * so the registry authenticates it and checks every read and write exactly as for NATS and HTTP.
 */
@Controller()
@UseFilters(GrpcErrorFilter)
export class ItemsGrpcController {
  private readonly registry: RegistryItemsClient;

  constructor(mesh: MeshClient) {
    this.registry = createRegistryItemsClient(mesh);
  }

  @GrpcMethod('Resources', 'GetResource')
  getResource(_: object, __: Metadata, call: Call) {
    return serveUnary(call, items.getResource.request, (request) => this.registry.getResource(request));
  }

  @GrpcMethod('Resources', 'CreateResource')
  createResource(_: object, __: Metadata, call: Call) {
    return serveUnary(call, items.createResource.request, (request) => this.registry.createResource(request));
  }

  @GrpcMethod('Resources', 'UpdateResource')
  updateResource(_: object, __: Metadata, call: Call) {
    return serveUnary(call, items.updateResource.request, (request) => this.registry.updateResource(request));
  }

  @GrpcMethod('Resources', 'DeleteResource')
  deleteResource(_: object, __: Metadata, call: Call) {
    return serveUnary(call, items.deleteResource.request, (request) => this.registry.deleteResource(request));
  }

  @GrpcMethod('Resources', 'ListResources')
  listResources(_: object, __: Metadata, call: Call) {
    return serveUnary(call, items.listResources.request, (request) => this.registry.listResources(request));
  }

  @GrpcMethod('Variables', 'GetVariable')
  getVariable(_: object, __: Metadata, call: Call) {
    return serveUnary(call, items.getVariable.request, (request) => this.registry.getVariable(request));
  }

  @GrpcMethod('Variables', 'CreateVariable')
  createVariable(_: object, __: Metadata, call: Call) {
    return serveUnary(call, items.createVariable.request, (request) => this.registry.createVariable(request));
  }

  @GrpcMethod('Variables', 'UpdateVariable')
  updateVariable(_: object, __: Metadata, call: Call) {
    return serveUnary(call, items.updateVariable.request, (request) => this.registry.updateVariable(request));
  }

  @GrpcMethod('Variables', 'DeleteVariable')
  deleteVariable(_: object, __: Metadata, call: Call) {
    return serveUnary(call, items.deleteVariable.request, (request) => this.registry.deleteVariable(request));
  }

  @GrpcMethod('Variables', 'ListVariables')
  listVariables(_: object, __: Metadata, call: Call) {
    return serveUnary(call, items.listVariables.request, (request) => this.registry.listVariables(request));
  }
}
