import { registryIdentityContract as contract, type Folder } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { AccessService } from '../access/access.service.js';
import { FoldersService } from './folders.service.js';

type Req<K extends keyof typeof contract> = z.output<(typeof contract)[K]['request']>;

@Controller()
export class FoldersHandler {
  constructor(
    private readonly access: AccessService,
    private readonly folders: FoldersService,
  ) {}

  @HandleRequest(contract.listFolders)
  async list(@Payload() req: Req<'listFolders'>): Promise<{ folders: Folder[] }> {
    return {
      folders: await this.folders.list(await this.access.authenticate(req.actor.token, req.workspace)),
    };
  }

  @HandleRequest(contract.getFolder)
  async get(@Payload() req: Req<'getFolder'>): Promise<Folder> {
    return this.folders.get(await this.access.authenticate(req.actor.token, req.workspace), req.name);
  }

  @HandleRequest(contract.createFolder)
  async create(@Payload() req: Req<'createFolder'>): Promise<Folder> {
    return this.folders.create(await this.access.authenticate(req.actor.token, req.workspace), req.name, req);
  }

  @HandleRequest(contract.updateFolder)
  async update(@Payload() req: Req<'updateFolder'>): Promise<Folder> {
    return this.folders.update(await this.access.authenticate(req.actor.token, req.workspace), req.name, req);
  }

  @HandleRequest(contract.deleteFolder)
  async delete(@Payload() req: Req<'deleteFolder'>): Promise<{ done: true }> {
    return this.folders.delete(await this.access.authenticate(req.actor.token, req.workspace), req.name);
  }
}
