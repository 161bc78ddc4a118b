import { registryDraftsContract as contract } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { AccessService } from '../access/access.service.js';
import { DeployDraftService } from './deploy-draft.service.js';
import { DraftsService } from './drafts.service.js';

type Req<K extends keyof typeof contract> = z.output<(typeof contract)[K]['request']>;
type Res<K extends keyof typeof contract> = z.input<(typeof contract)[K]['reply']>;

@Controller()
export class DraftsHandler {
  constructor(
    private readonly access: AccessService,
    private readonly drafts: DraftsService,
    private readonly deployer: DeployDraftService,
  ) {}

  @HandleRequest(contract.save)
  async save(@Payload() req: Req<'save'>): Promise<Res<'save'>> {
    return this.drafts.save(await this.identity(req), req.item_kind, req.path, req.value);
  }

  @HandleRequest(contract.list)
  async list(@Payload() req: Req<'list'>): Promise<Res<'list'>> {
    return { drafts: await this.drafts.list(await this.identity(req), req.item_kind) };
  }

  @HandleRequest(contract.get)
  async get(@Payload() req: Req<'get'>): Promise<Res<'get'>> {
    return this.drafts.get(await this.identity(req), req.draft);
  }

  @HandleRequest(contract.deploy)
  async deploy(@Payload() req: Req<'deploy'>): Promise<Res<'deploy'>> {
    return this.deployer.deploy(await this.identity(req), req.item_kind, req.path);
  }

  @HandleRequest(contract.discard)
  async discard(@Payload() req: Req<'discard'>): Promise<Res<'discard'>> {
    return this.drafts.discard(await this.identity(req), req.item_kind, req.path);
  }

  private identity(req: { actor: { token: string }; workspace: string }) {
    return this.access.authenticate(req.actor.token, req.workspace);
  }
}
