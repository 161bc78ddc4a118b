import { registryItemsContract as contract, type ResourceType } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { AccessService } from '../access/access.service.js';
import { ResourceTypesService } from './resource-types.service.js';

type Req<K extends keyof typeof contract> = z.output<(typeof contract)[K]['request']>;

/** `registry.resource_type.*` over NATS. */
@Controller()
export class ResourceTypesHandler {
  constructor(
    private readonly access: AccessService,
    private readonly types: ResourceTypesService,
  ) {}

  @HandleRequest(contract.getResourceType)
  async get(@Payload() req: Req<'getResourceType'>): Promise<ResourceType> {
    return this.types.get(await this.access.authenticate(req.actor.token, req.workspace), req.name);
  }

  @HandleRequest(contract.listResourceTypes)
  async list(@Payload() req: Req<'listResourceTypes'>): Promise<{ resource_types: ResourceType[] }> {
    return {
      resource_types: await this.types.list(await this.access.authenticate(req.actor.token, req.workspace)),
    };
  }

  @HandleRequest(contract.createResourceType)
  async create(@Payload() req: Req<'createResourceType'>): Promise<ResourceType> {
    const identity = await this.access.authenticate(req.actor.token, req.workspace);
    return this.types.create(identity, { name: req.name, schema: req.schema, description: req.description });
  }

  @HandleRequest(contract.updateResourceType)
  async update(@Payload() req: Req<'updateResourceType'>): Promise<ResourceType> {
    const identity = await this.access.authenticate(req.actor.token, req.workspace);
    return this.types.update(identity, req.name, { schema: req.schema, description: req.description });
  }

  @HandleRequest(contract.deleteResourceType)
  async delete(@Payload() req: Req<'deleteResourceType'>): Promise<{ deleted: true }> {
    await this.types.delete(await this.access.authenticate(req.actor.token, req.workspace), req.name);
    return { deleted: true };
  }
}
