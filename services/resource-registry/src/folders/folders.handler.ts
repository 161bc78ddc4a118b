import {
  registryIdentityContract as contract,
  type CallerIdentity,
  type Folder,
  type RequestOf,
} from '@flowmesh/contracts';
import { HandleRequest, MeshCaller } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { FoldersService } from './folders.service.js';

@Controller()
export class FoldersHandler {
  constructor(private readonly folders: FoldersService) {}

  @HandleRequest(contract.listFolders)
  async list(@MeshCaller() identity: CallerIdentity): Promise<{ folders: Folder[] }> {
    return {
      folders: await this.folders.list(identity),
    };
  }

  @HandleRequest(contract.getFolder)
  async get(
    @Payload() req: RequestOf<typeof contract.getFolder>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<Folder> {
    return this.folders.get(identity, req.name);
  }

  @HandleRequest(contract.createFolder)
  async create(
    @Payload() req: RequestOf<typeof contract.createFolder>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<Folder> {
    return this.folders.create(identity, req.name, req);
  }

  @HandleRequest(contract.updateFolder)
  async update(
    @Payload() req: RequestOf<typeof contract.updateFolder>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<Folder> {
    return this.folders.update(identity, req.name, req);
  }

  @HandleRequest(contract.deleteFolder)
  async delete(
    @Payload() req: RequestOf<typeof contract.deleteFolder>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<{ done: true }> {
    return this.folders.delete(identity, req.name);
  }
}
