import { registryHistoryContract as contract } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { AccessService } from '../access/access.service.js';
import { ClearResourceVersionsService } from './clear-resource-versions.service.js';
import { ResourceHistoryService } from './resource-history.service.js';
import { RestoreResourceVersionService } from './restore-resource-version.service.js';

type Req<K extends keyof typeof contract> = z.output<(typeof contract)[K]['request']>;
type Res<K extends keyof typeof contract> = z.input<(typeof contract)[K]['reply']>;

@Controller()
export class ResourceHistoryHandler {
  constructor(
    private readonly access: AccessService,
    private readonly history: ResourceHistoryService,
    private readonly restorer: RestoreResourceVersionService,
    private readonly clearer: ClearResourceVersionsService,
  ) {}

  @HandleRequest(contract.list)
  async list(@Payload() req: Req<'list'>): Promise<Res<'list'>> {
    return { versions: await this.history.list(await this.identity(req), req.path) };
  }

  @HandleRequest(contract.get)
  async get(@Payload() req: Req<'get'>): Promise<Res<'get'>> {
    return this.history.get(await this.identity(req), req.path, req.version);
  }

  @HandleRequest(contract.diff)
  async diff(@Payload() req: Req<'diff'>): Promise<Res<'diff'>> {
    return this.history.diff(await this.identity(req), req.path, req.from, req.to);
  }

  @HandleRequest(contract.restore)
  async restore(@Payload() req: Req<'restore'>): Promise<Res<'restore'>> {
    return this.restorer.restore(await this.identity(req), req.path, req.version);
  }

  @HandleRequest(contract.clear)
  async clear(@Payload() req: Req<'clear'>): Promise<Res<'clear'>> {
    return this.clearer.clear(await this.identity(req), req.path);
  }

  private identity(req: { actor: { token: string }; workspace: string }) {
    return this.access.authenticate(req.actor.token, req.workspace);
  }
}
