import {
  registryIdentityContract as contract,
  type CallerIdentity,
  type Group,
  type RequestOf,
} from '@flowmesh/contracts';
import { HandleRequest, MeshCaller } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { GroupsService } from './groups.service.js';

@Controller()
export class GroupsHandler {
  constructor(private readonly groups: GroupsService) {}

  @HandleRequest(contract.listGroups)
  async list(@MeshCaller() identity: CallerIdentity): Promise<{ groups: Group[] }> {
    return { groups: await this.groups.list(identity) };
  }

  @HandleRequest(contract.getGroup)
  async get(
    @Payload() req: RequestOf<typeof contract.getGroup>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<Group> {
    return this.groups.get(identity, req.name);
  }

  @HandleRequest(contract.createGroup)
  async create(
    @Payload() req: RequestOf<typeof contract.createGroup>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<Group> {
    return this.groups.create(identity, req.name, req.summary);
  }

  @HandleRequest(contract.deleteGroup)
  async delete(
    @Payload() req: RequestOf<typeof contract.deleteGroup>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<{ done: true }> {
    return this.groups.delete(identity, req.name);
  }

  @HandleRequest(contract.addGroupMember)
  async addMember(
    @Payload() req: RequestOf<typeof contract.addGroupMember>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<Group> {
    return this.groups.addMember(identity, req.name, req.username);
  }

  @HandleRequest(contract.removeGroupMember)
  async removeMember(
    @Payload() req: RequestOf<typeof contract.removeGroupMember>,
    @MeshCaller() identity: CallerIdentity,
  ): Promise<Group> {
    return this.groups.removeMember(identity, req.name, req.username);
  }
}
