import {
  registryItemsContract as contract,
  type ListedResource,
  type ResolvedResourceReply,
  type Resource,
} from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { AccessService } from '../access/access.service.js';
import { InterpolationService } from '../interpolation/interpolation.service.js';
import { ReadResourcesService } from './read-resources.service.js';
import { WriteResourcesService } from './write-resources.service.js';

type Req<K extends keyof typeof contract> = z.output<(typeof contract)[K]['request']>;

/** `registry.resource.*` over NATS. */
@Controller()
export class ResourcesHandler {
  constructor(
    private readonly access: AccessService,
    private readonly read: ReadResourcesService,
    private readonly write: WriteResourcesService,
    private readonly interpolation: InterpolationService,
  ) {}

  @HandleRequest(contract.getResource)
  async get(@Payload() req: Req<'getResource'>): Promise<Resource> {
    return this.read.get(await this.access.authenticate(req.actor.token, req.workspace), req.path);
  }

  @HandleRequest(contract.getResourceValue)
  async getValue(@Payload() req: Req<'getResourceValue'>): Promise<{ value: unknown }> {
    return {
      value: (await this.read.get(await this.access.authenticate(req.actor.token, req.workspace), req.path))
        .value,
    };
  }

  @HandleRequest(contract.getResourceValueInterpolated)
  async getValueInterpolated(
    @Payload() req: Req<'getResourceValueInterpolated'>,
  ): Promise<{ value: unknown }> {
    return {
      value: await this.interpolation.resourceValue(
        await this.access.authenticate(req.actor.token, req.workspace),
        req.path,
      ),
    };
  }

  @HandleRequest(contract.resolveResource)
  async resolve(@Payload() req: Req<'resolveResource'>): Promise<ResolvedResourceReply> {
    const identity = await this.access.authenticateWithExpiry(req.actor.token, req.workspace);
    return this.interpolation.resolvedResource(identity, req.path);
  }

  @HandleRequest(contract.resourceExists)
  async exists(@Payload() req: Req<'resourceExists'>): Promise<{ exists: boolean }> {
    return {
      exists: await this.read.exists(
        await this.access.authenticate(req.actor.token, req.workspace),
        req.path,
      ),
    };
  }

  @HandleRequest(contract.createResource)
  async create(@Payload() req: Req<'createResource'>): Promise<Resource> {
    const identity = await this.access.authenticate(req.actor.token, req.workspace);
    return this.write.create(identity, {
      path: req.path,
      resourceType: req.resource_type,
      value: req.value,
      description: req.description,
    });
  }

  @HandleRequest(contract.updateResource)
  async update(@Payload() req: Req<'updateResource'>): Promise<Resource> {
    const identity = await this.access.authenticate(req.actor.token, req.workspace);
    return this.write.update(identity, req.path, {
      newPath: req.new_path,
      value: req.value,
      description: req.description,
    });
  }

  @HandleRequest(contract.updateResourceValue)
  async updateValue(@Payload() req: Req<'updateResourceValue'>): Promise<Resource> {
    return this.write.update(await this.access.authenticate(req.actor.token, req.workspace), req.path, {
      value: req.value,
    });
  }

  @HandleRequest(contract.deleteResource)
  async delete(@Payload() req: Req<'deleteResource'>): Promise<{ deleted: true }> {
    await this.write.delete(await this.access.authenticate(req.actor.token, req.workspace), req.path);
    return { deleted: true };
  }

  @HandleRequest(contract.listResources)
  async list(@Payload() req: Req<'listResources'>): Promise<{ resources: ListedResource[] }> {
    const identity = await this.access.authenticate(req.actor.token, req.workspace);
    return {
      resources: await this.read.list(identity, {
        resourceTypes: req.resource_types,
        pathPrefix: req.path_prefix,
      }),
    };
  }
}
