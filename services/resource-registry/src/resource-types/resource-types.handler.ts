import {
  registryItemsContract as contract,
  type CallerIdentity,
  type RequestOf,
  type ResourceType,
} from '@flowmesh/contracts';
import { HandleRequest, MeshCaller } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ResourceTypesService } from './resource-types.service.js';

/** `registry.resource_type.*` over NATS. */
@Controller()
export class ResourceTypesHandler {
  constructor(private readonly types: ResourceTypesService) {}

  @HandleRequest(contract.getResourceType)
  async get(
    @Payload() req: RequestOf<typeof contract.getResourceType>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<ResourceType> {
    return this.types.get(identity, req.name);
  }

  @HandleRequest(contract.listResourceTypes)
  async list(@MeshCaller() identity: CallerIdentity): Promise<{ resource_types: ResourceType[] }> {
    return {
      resource_types: await this.types.list(identity),
    };
  }

  @HandleRequest(contract.createResourceType)
  async create(
    @Payload() req: RequestOf<typeof contract.createResourceType>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<ResourceType> {
    return this.types.create(identity, { name: req.name, schema: req.schema, description: req.description });
  }

  @HandleRequest(contract.updateResourceType)
  async update(
    @Payload() req: RequestOf<typeof contract.updateResourceType>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<ResourceType> {
    return this.types.update(identity, req.name, { schema: req.schema, description: req.description });
  }

  @HandleRequest(contract.deleteResourceType)
  async delete(
    @Payload() req: RequestOf<typeof contract.deleteResourceType>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<{ deleted: true }> {
    await this.types.delete(identity, req.name);
    return { deleted: true };
  }
}
