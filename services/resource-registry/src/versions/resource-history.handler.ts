import {
  registryHistoryContract as contract,
  type CallerIdentity,
  type ReplyOf,
  type RequestOf,
} from '@flowmesh/contracts';
import { HandleRequest, MeshCaller } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ClearResourceVersionsUseCase } from './clear-resource-versions.use-case.js';
import { ResourceHistoryService } from './resource-history.service.js';
import { RestoreResourceVersionUseCase } from './restore-resource-version.use-case.js';

@Controller()
export class ResourceHistoryHandler {
  constructor(
    private readonly history: ResourceHistoryService,
    private readonly restorer: RestoreResourceVersionUseCase,
    private readonly clearer: ClearResourceVersionsUseCase,
  ) {}

  @HandleRequest(contract.list)
  async list(
    @Payload() req: RequestOf<typeof contract.list>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<ReplyOf<typeof contract.list>> {
    return { versions: await this.history.list(identity, req.path) };
  }

  @HandleRequest(contract.get)
  async get(
    @Payload() req: RequestOf<typeof contract.get>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<ReplyOf<typeof contract.get>> {
    return this.history.get(identity, req.path, req.version);
  }

  @HandleRequest(contract.diff)
  async diff(
    @Payload() req: RequestOf<typeof contract.diff>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<ReplyOf<typeof contract.diff>> {
    return this.history.diff(identity, req.path, req.from, req.to);
  }

  @HandleRequest(contract.restore)
  async restore(
    @Payload() req: RequestOf<typeof contract.restore>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<ReplyOf<typeof contract.restore>> {
    return this.restorer.restore(identity, req.path, req.version);
  }

  @HandleRequest(contract.clear)
  async clear(
    @Payload() req: RequestOf<typeof contract.clear>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<ReplyOf<typeof contract.clear>> {
    return this.clearer.clear(identity, req.path);
  }
}
