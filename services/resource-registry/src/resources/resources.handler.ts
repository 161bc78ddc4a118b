import {
  registryItemsContract as contract,
  type CallerIdentity,
  type ListedResource,
  type RequestOf,
  type ResolvedResourceReply,
  type Resource,
} from '@flowmesh/contracts';
import { HandleRequest, MeshCaller } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AccessService } from '../access/access.service.js';
import { InterpolationService } from '../interpolation/interpolation.service.js';
import { ReadResourcesUseCase } from './read-resources.use-case.js';
import { WriteResourcesUseCase } from './write-resources.use-case.js';

/** `registry.resource.*` over NATS. */
@Controller()
export class ResourcesHandler {
  constructor(
    private readonly access: AccessService,
    private readonly read: ReadResourcesUseCase,
    private readonly write: WriteResourcesUseCase,
    private readonly interpolation: InterpolationService,
  ) {}

  @HandleRequest(contract.getResource)
  async get(
    @Payload() req: RequestOf<typeof contract.getResource>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<Resource> {
    return this.read.get(identity, req.path);
  }

  @HandleRequest(contract.getResourceValue)
  async getValue(
    @Payload() req: RequestOf<typeof contract.getResourceValue>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<{ value: unknown }> {
    return {
      value: (await this.read.get(identity, req.path)).value,
    };
  }

  @HandleRequest(contract.getResourceValueInterpolated)
  async getValueInterpolated(
    @Payload() req: RequestOf<typeof contract.getResourceValueInterpolated>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<{ value: unknown }> {
    return {
      value: await this.interpolation.resourceValue(identity, req.path),
    };
  }

  @HandleRequest(contract.resolveResource)
  async resolve(@Payload() req: RequestOf<typeof contract.resolveResource>): Promise<ResolvedResourceReply> {
    const identity = await this.access.authenticateWithExpiry(req.actor.token, req.workspace);
    return this.interpolation.resolvedResource(identity, req.path);
  }

  @HandleRequest(contract.resourceExists)
  async exists(
    @Payload() req: RequestOf<typeof contract.resourceExists>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<{ exists: boolean }> {
    return {
      exists: await this.read.exists(identity, req.path),
    };
  }

  @HandleRequest(contract.createResource)
  async create(
    @Payload() req: RequestOf<typeof contract.createResource>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<Resource> {
    return this.write.create(identity, {
      path: req.path,
      resourceType: req.resource_type,
      value: req.value,
      description: req.description,
    });
  }

  @HandleRequest(contract.updateResource)
  async update(
    @Payload() req: RequestOf<typeof contract.updateResource>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<Resource> {
    return this.write.update(identity, req.path, {
      newPath: req.new_path,
      value: req.value,
      description: req.description,
    });
  }

  @HandleRequest(contract.updateResourceValue)
  async updateValue(
    @Payload() req: RequestOf<typeof contract.updateResourceValue>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<Resource> {
    return this.write.update(identity, req.path, {
      value: req.value,
    });
  }

  @HandleRequest(contract.deleteResource)
  async delete(
    @Payload() req: RequestOf<typeof contract.deleteResource>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<{ deleted: true }> {
    await this.write.delete(identity, req.path);
    return { deleted: true };
  }

  @HandleRequest(contract.listResources)
  async list(
    @Payload() req: RequestOf<typeof contract.listResources>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<{ resources: ListedResource[] }> {
    return {
      resources: await this.read.list(identity, {
        resourceTypes: req.resource_types,
        pathPrefix: req.path_prefix,
      }),
    };
  }
}
