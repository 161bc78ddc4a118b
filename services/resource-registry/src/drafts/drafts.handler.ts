import {
  registryDraftsContract as contract,
  type CallerIdentity,
  type ReplyOf,
  type RequestOf,
} from '@flowmesh/contracts';
import { HandleRequest, MeshCaller } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DeployDraftUseCase } from './deploy-draft.use-case.js';
import { DraftsService } from './drafts.service.js';

@Controller()
export class DraftsHandler {
  constructor(
    private readonly drafts: DraftsService,
    private readonly deployer: DeployDraftUseCase,
  ) {}

  @HandleRequest(contract.save)
  async save(
    @Payload() req: RequestOf<typeof contract.save>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<ReplyOf<typeof contract.save>> {
    return this.drafts.save(identity, req.item_kind, req.path, req.value);
  }

  @HandleRequest(contract.list)
  async list(
    @Payload() req: RequestOf<typeof contract.list>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<ReplyOf<typeof contract.list>> {
    return { drafts: await this.drafts.list(identity, req.item_kind) };
  }

  @HandleRequest(contract.get)
  async get(
    @Payload() req: RequestOf<typeof contract.get>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<ReplyOf<typeof contract.get>> {
    return this.drafts.get(identity, req.draft);
  }

  @HandleRequest(contract.deploy)
  async deploy(
    @Payload() req: RequestOf<typeof contract.deploy>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<ReplyOf<typeof contract.deploy>> {
    return this.deployer.deploy(identity, req.item_kind, req.path);
  }

  @HandleRequest(contract.discard)
  async discard(
    @Payload() req: RequestOf<typeof contract.discard>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<ReplyOf<typeof contract.discard>> {
    return this.drafts.discard(identity, req.item_kind, req.path);
  }
}
